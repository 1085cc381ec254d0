package redis

import (
	"context"
	"errors"
	"fmt"

	"github.com/redis/go-redis/v9"
)

// MaxConvertEvents is the longest stream [Session.ConvertToList] converts.
// The conversion is one script, which holds the server for its whole run:
// 43–44 ms for 20,000 S1 events on the machine this was measured on
// (7.4–7.8 ms for 4,000; docs/sessions.md). A longer stream stays a
// stream, which reads slower but correctly.
const MaxConvertEvents = 20_000

// MaxConvertBytes is the most payload bytes [Session.ConvertToList]
// converts: the script holds them all in the server's memory before it
// writes the list (a stream of 20,000 S1 events holds about 6 MB).
const MaxConvertBytes = 64 << 20

// ErrTooLongToConvert reports a stream of more than [MaxConvertEvents]
// events or [MaxConvertBytes] bytes.
var ErrTooLongToConvert = errors.New("redis: session stream too long to convert in one step")

// ConvertToList stores a session kept as a stream as a list instead, in
// one atomic step, with the same events under the same sequence ids; a
// session that is a list already, or does not exist, is left as it is.
// Lists read faster (see the package documentation). A process of an
// earlier version fails on a list rather than split it, but it fails, so
// convert only once none is left.
//
// An empty stream stays a stream, its counter the only record of the ids
// spent. The conversion refuses, changing nothing, a stream longer than
// [MaxConvertEvents] or [MaxConvertBytes] ([ErrTooLongToConvert]), one
// whose counter is gone
// ([ErrSequenceLost]), one holding an entry reads would reject (an ID
// other than "<seq>-1", a seq field that disagrees with it, no payload:
// [helikon.ErrSessionCorrupt], as below), one with entries deleted from
// its middle by hand
// (a list's items are consecutive), and one whose counter is ahead of its
// last entry (entries deleted by hand from its end: the ids after them are
// spent, and a list takes its next id from its last item).
func (s *Session) ConvertToList(ctx context.Context) error {
	return s.convertToList(ctx, MaxConvertEvents, MaxConvertBytes)
}

// convertToList is ConvertToList for streams of up to maxEvents entries
// and maxBytes bytes of payloads.
func (s *Session) convertToList(ctx context.Context, maxEvents, maxBytes int) error {
	if err := convertScript.Run(ctx, s.client, []string{s.events, s.seq}, maxEvents, maxBytes).Err(); err != nil {
		return wrap(fmt.Sprintf("convert session %q", s.id), err)
	}
	s.layout.Store(int32(layoutList))
	return nil
}

// convertScript turns a session's stream into a list.
//
// KEYS[1] is the events key, KEYS[2] the stream's counter; ARGV[1] the
// most entries and ARGV[2] the most payload bytes to convert. Every check
// happens before the first write.
var convertScript = redis.NewScript(`
if redis.call('TYPE', KEYS[1]).ok ~= 'stream' then
  return 0
end
local n = redis.call('XLEN', KEYS[1])
if n == 0 then
  return 0
end
if n > tonumber(ARGV[1]) then
  return redis.error_reply('HELIKON_TOO_LONG the stream holds ' .. n .. ' entries')
end
local counter = redis.call('GET', KEYS[2])
if not counter then
  return redis.error_reply('HELIKON_SEQ_LOST sequence counter missing while the stream exists')
end
-- The entries are read in pages, their payloads counted as they come, so
-- that a stream of huge events is refused before it is all in memory.
local maxBytes = tonumber(ARGV[2])
local items, bytes, last, start = {}, 0, nil, '-'
repeat
  local entries = redis.call('XRANGE', KEYS[1], start, '+', 'COUNT', 1000)
  for _, e in ipairs(entries) do
    local seq = string.match(e[1], '^(%d+)%-1$')
    if not seq then
      return redis.error_reply('HELIKON_BAD_ENTRY entry ' .. e[1] .. ' is not <seq>-1')
    end
    seq = tonumber(seq)
    local payload
    for j = 1, #e[2], 2 do
      local f, v = e[2][j], e[2][j + 1]
      if f == 'payload' then
        payload = v
      elseif f == 'seq' and tonumber(v) ~= seq then
        return redis.error_reply('HELIKON_BAD_ENTRY entry ' .. e[1] .. ' has the seq field ' .. v)
      end
    end
    if not payload then
      return redis.error_reply('HELIKON_BAD_ENTRY entry ' .. e[1] .. ' has no payload')
    end
    if last and seq ~= last + 1 then
      return redis.error_reply('HELIKON_BAD_ENTRY entry ' .. e[1] .. ' does not follow entry ' .. last)
    end
    bytes = bytes + #payload
    if bytes > maxBytes then
      return redis.error_reply('HELIKON_TOO_LONG the stream holds more than ' .. maxBytes .. ' bytes of payloads')
    end
    last = seq
    items[#items + 1] = string.format('%d ', seq) .. payload
  end
  start = string.format('%d-0', last + 1)
until #entries < 1000
if tonumber(counter) ~= last + 1 then
  return redis.error_reply('HELIKON_BAD_ENTRY the counter is at ' .. counter .. ', past the last entry ' .. last)
end
redis.call('DEL', KEYS[1], KEYS[2])
for i = 1, #items, 1000 do
  redis.call('RPUSH', KEYS[1], unpack(items, i, math.min(i + 999, #items)))
end
return 1
`)
