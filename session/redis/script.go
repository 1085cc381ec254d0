package redis

import "github.com/redis/go-redis/v9"

// appendScript appends a batch atomically.
//
// KEYS[1] is the event stream, KEYS[2] the sequence counter (it holds the
// number of ids handed out). ARGV[1] is MAXLEN, 0 for no trimming; then
// each event's payload. It returns the first sequence id of the batch.
//
// An entry holds the fields seq and payload only. Entries written before
// also held kind and ts, copies of what the payload holds; reads take seq
// and payload by name, so both forms read alike, in this version and in
// earlier ones.
//
// Every check happens before the first write, because Redis does not roll
// a script back: a failure after INCRBY would leave a gap.
var appendScript = redis.NewScript(`
if redis.call('EXISTS', KEYS[2]) == 0 and redis.call('EXISTS', KEYS[1]) == 1 then
  return redis.error_reply('HELIKON_SEQ_LOST sequence counter missing while the stream exists')
end
local n = #ARGV - 1
local first = redis.call('INCRBY', KEYS[2], n) - n
local maxlen = tonumber(ARGV[1])
for i = 0, n - 1 do
  local seq = first + i
  local id = string.format('%d-1', seq)
  if maxlen > 0 then
    redis.call('XADD', KEYS[1], 'MAXLEN', maxlen, id, 'seq', seq, 'payload', ARGV[2 + i])
  else
    redis.call('XADD', KEYS[1], id, 'seq', seq, 'payload', ARGV[2 + i])
  end
end
return first
`)
