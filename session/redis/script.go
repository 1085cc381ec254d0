package redis

import "github.com/redis/go-redis/v9"

// appendScript appends a batch atomically.
//
// KEYS[1] is the event stream, KEYS[2] the sequence counter (it holds the
// number of ids handed out). ARGV[1] is MAXLEN, 0 for no trimming; ARGV[2]
// is "1" to write a seq field ([WithSeqField]), else "0"; then each
// event's payload. It returns the first sequence id of the batch.
//
// An entry's id is "<seq>-1", and it holds the field payload only (with
// [WithSeqField], seq too). Entries written by earlier versions also held
// seq, and earlier still kind and ts; reads take the sequence id from the
// entry's id and the payload by name, so every form reads alike.
//
// Every check happens before the first write, because Redis does not roll
// a script back: a failure after INCRBY would leave a gap.
var appendScript = redis.NewScript(`
if redis.call('EXISTS', KEYS[2]) == 0 and redis.call('EXISTS', KEYS[1]) == 1 then
  return redis.error_reply('HELIKON_SEQ_LOST sequence counter missing while the stream exists')
end
local n = #ARGV - 2
local first = redis.call('INCRBY', KEYS[2], n) - n
local maxlen = tonumber(ARGV[1])
local withSeq = ARGV[2] == '1'
for i = 0, n - 1 do
  local seq = first + i
  local args = {KEYS[1]}
  if maxlen > 0 then
    args[#args + 1] = 'MAXLEN'
    args[#args + 1] = maxlen
  end
  args[#args + 1] = string.format('%d-1', seq)
  if withSeq then
    args[#args + 1] = 'seq'
    args[#args + 1] = seq
  end
  args[#args + 1] = 'payload'
  args[#args + 1] = ARGV[3 + i]
  redis.call('XADD', unpack(args))
end
return first
`)
