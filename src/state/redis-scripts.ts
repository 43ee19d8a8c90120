// Lua run inside Redis so that each operation is one atomic step for every instance sharing the
// server, with Redis's own TIME as the clock. The rules mirror admission-logic.ts (the contract suite
// runs both). Some keys are computed inside a script (evicted documents); on a Redis Cluster every key
// carries its group's hash tag (redis-store.ts keyOf), so those share the slot of the script's KEYS.

const NOW = `
local __t = redis.call('TIME')
local now = tonumber(__t[1]) * 1000 + math.floor(tonumber(__t[2]) / 1000)
`;

// Documents: `d:<ns>:<id>` a hash {o, v} with the TTL; `do:<ns>` the written order (zset by sequence);
// `dm:<ns>` the namespace's meta hash (`bytes`, `seq`, and `o:<owner>` each owner's bytes);
// `ds:<ns>` id → "<size> <owner>" (a bare size before owners had shares); `dw:<ns>:<owner>` that
// owner's written order. An entry evicted or expired leaves every index in the same script.
const DOC_HELPERS = `
local function size_owner(v)
  if not v then return 0, nil end
  local size, owner = string.match(v, '^(%d+) (.*)$')
  if size then return tonumber(size), owner end
  return tonumber(v) or 0, nil
end
local function forget(meta, order, sizes, docPrefix, ownerPrefix, id)
  local size, owner = size_owner(redis.call('HGET', sizes, id))
  redis.call('ZREM', order, id)
  redis.call('HDEL', sizes, id)
  redis.call('DEL', docPrefix .. id)
  if owner then
    redis.call('ZREM', ownerPrefix .. owner, id)
    redis.call('HINCRBY', meta, 'o:' .. owner, -size)
  end
  return redis.call('HINCRBY', meta, 'bytes', -size)
end
`;

/** KEYS: doc, order zset, meta hash, sizes hash, owner's order zset. ARGV: id, owner, value, bytes,
 * ttlMs, maxBytes, doc key prefix, ownerMaxBytes, owner order key prefix. */
export const PUT_DOC = `${DOC_HELPERS}
if redis.call('HEXISTS', KEYS[4], ARGV[1]) == 1 then
  forget(KEYS[3], KEYS[2], KEYS[4], ARGV[7], ARGV[9], ARGV[1])
end
local seq = redis.call('HINCRBY', KEYS[3], 'seq', 1)
redis.call('DEL', KEYS[1])
redis.call('HSET', KEYS[1], 'o', ARGV[2], 'v', ARGV[3])
redis.call('PEXPIRE', KEYS[1], ARGV[5])
redis.call('HSET', KEYS[4], ARGV[1], ARGV[4] .. ' ' .. ARGV[2])
redis.call('ZADD', KEYS[2], seq, ARGV[1])
redis.call('ZADD', KEYS[5], seq, ARGV[1])
local mine = redis.call('HINCRBY', KEYS[3], 'o:' .. ARGV[2], ARGV[4])
local bytes = redis.call('HINCRBY', KEYS[3], 'bytes', ARGV[4])
local max = tonumber(ARGV[6])
local ownerMax = tonumber(ARGV[8])
-- The owner's own oldest first, down to its share (this document alone fits, so it stays).
for _ = 1, 10000 do
  if mine <= ownerMax then break end
  local first = redis.call('ZRANGE', KEYS[5], 0, 0)
  if #first == 0 then break end
  bytes = forget(KEYS[3], KEYS[2], KEYS[4], ARGV[7], ARGV[9], first[1])
  mine = tonumber(redis.call('HGET', KEYS[3], 'o:' .. ARGV[2]) or '0')
end
-- Then the namespace's oldest written: expired ones, then whatever is needed to get back under the bound.
for _ = 1, 10000 do
  local first = redis.call('ZRANGE', KEYS[2], 0, 0)
  if #first == 0 then break end
  local id = first[1]
  if bytes <= max and redis.call('EXISTS', ARGV[7] .. id) == 1 then break end
  bytes = forget(KEYS[3], KEYS[2], KEYS[4], ARGV[7], ARGV[9], id)
end
return bytes
`;

/** KEYS: doc, order zset, meta hash, sizes hash. ARGV: id, owner, doc key prefix, owner order key prefix.
 * Returns 1 when deleted. */
export const DELETE_DOC = `${DOC_HELPERS}
local owner = redis.call('HGET', KEYS[1], 'o')
if owner ~= ARGV[2] then return 0 end
forget(KEYS[3], KEYS[2], KEYS[4], ARGV[3], ARGV[4], ARGV[1])
return 1
`;

/** KEYS: the claim keys. ARGV: owner, ttlMs. A live claim of another owner is left as it is. */
export const CLAIM = `
for i = 1, #KEYS do
  local held = redis.call('GET', KEYS[i])
  if not held or held == ARGV[1] then
    redis.call('SET', KEYS[i], ARGV[1], 'PX', ARGV[2])
  end
end
return #KEYS
`;

// A window is one string of little-endian doubles, [bucket, amount, bucket, amount, …] in bucket
// order (bucket width `b`, computed by the caller as in admission-logic.ts), at most 61 pairs: read
// with one GET and one struct.unpack, written with one SET. A hash of bucket → amount cost an
// HGETALL of up to 60 fields, a tonumber and a table.sort per check; this halves the server's CPU
// per admission. A bucket counts until its last millisecond plus the window has passed.
const WINDOW_HELPERS = `
local __fmt = {}
local function pairs_fmt(n)
  local f = __fmt[n]
  if not f then
    f = '<' .. string.rep('d', 2 * n)
    __fmt[n] = f
  end
  return f
end
local function leaves_at(bucket, width, windowMs)
  return (bucket + 1) * width - 1 + windowMs
end
-- The live buckets of a window: flat {bucket, amount, …}, their sum, and whether they are the whole
-- stored string (no bucket has left since it was written).
-- Buckets are stored in order, so the live ones are a suffix: usually all of them (a bucket leaves once a
-- second), and then the unpacked values are the live list as they are, with no copy.
local function window_read(key, windowMs, width)
  local raw = redis.call('GET', key)
  if raw then
    local n = math.floor(#raw / 16)
    if n > 0 then
      local v = { struct.unpack(pairs_fmt(n), raw) }
      v[2 * n + 1] = nil -- struct.unpack's next position
      local first = 1
      while first < 2 * n and leaves_at(v[first], width, windowMs) <= now do first = first + 2 end
      local live, sum = v, 0
      if first > 1 then
        live = {}
        for i = first, 2 * n do live[#live + 1] = v[i] end
      end
      for i = 2, #live, 2 do sum = sum + live[i] end
      return live, sum, first == 1 and #raw == 16 * n
    end
  end
  return {}, 0, false
end
`;

// What a script run reads of a key it keeps, and writes back once at its end (windows, counters) or
// as it goes (leases): a batch of calls that touch one key's windows, budget and leases pays the
// reads and the window writes once, not once per call. Nobody sees the state between two calls of one
// script run, so the outcome is that of the calls run one by one.
const BATCH_STATE = `
local W, C, L, NUM, TXT = {}, {}, {}, {}, {}
-- Number <-> text, remembered for the script run: the calls of a batch repeat the same window lengths,
-- limits, costs and resets, and strtod / sprintf were a tenth of the server's time per call.
local function num(s)
  local v = NUM[s]
  if v == nil then
    v = tonumber(s)
    NUM[s] = v
  end
  return v
end
local function txt(v)
  local s = TXT[v]
  if s == nil then
    s = tostring(v)
    TXT[v] = s
  end
  return s
end
-- A number for a reply: integers as they are (Redis sends them as integers, printed in C), any other
-- value as text (a Lua number in a reply would be truncated to an integer).
local function out_num(v)
  if v % 1 == 0 and v < 9007199254740992 and v > -9007199254740992 then return v end
  return txt(v)
end
-- A window's live buckets and their sum, read once (a key is always used with one window length).
local function win(key, w, b)
  local e = W[key]
  if not e then
    local live, sum, whole = window_read(key, w, b)
    e = { live = live, sum = sum, w = w, b = b, dirty = false, whole = whole }
    W[key] = e
  end
  return e
end
-- Adds an amount to the current bucket (usually the last one or a new one at the end; a clock that
-- stepped back finds its place). Only adding to the stored last bucket keeps the window 'whole'.
local function win_add(e, amount)
  local live, bucket = e.live, math.floor(now / e.b)
  local at = #live + 1
  while at > 1 and live[at - 2] > bucket do at = at - 2 end
  if at > 1 and live[at - 2] == bucket then
    live[at - 1] = live[at - 1] + amount
    if at <= #live then e.whole = false end
  else
    table.insert(live, at, amount)
    table.insert(live, at, bucket)
    e.whole = false
  end
  e.sum = e.sum + amount
  e.dirty = true
end
-- A window whose only change is its last bucket's amount gets those 8 bytes written in place
-- (SETRANGE; its expiry, that of its last bucket, stays right): most writes, since a bucket lasts a
-- second. Otherwise the live buckets are packed and SET with the last one's expiry.
local function win_flush()
  for key, e in pairs(W) do
    if e.dirty then
      local live = e.live
      if e.whole then
        redis.call('SETRANGE', key, 8 * (#live - 1), struct.pack('<d', live[#live]))
      else
        local ttl = leaves_at(live[#live - 1], e.b, e.w) - now
        redis.call('SET', key, struct.pack(pairs_fmt(#live / 2), unpack(live)), 'PX', math.max(1, ttl))
      end
    end
  end
end
-- A period counter: its value read once ({v = false} when absent); charges to an existing counter
-- add up here and go as one INCRBYFLOAT per key at the end (the caller's own decimal when it was
-- one charge). A charge creates an absent counter at once, with its period's TTL.
local function ctr(key)
  local e = C[key]
  if not e then
    local raw = redis.call('GET', key)
    e = { v = raw and tonumber(raw) }
    if raw and not e.v then error('counter ' .. key .. ' holds "' .. raw .. '", not a number', 0) end
    C[key] = e
  end
  return e
end
local function ctr_add(key, text, ttl)
  local e = ctr(key)
  local a = num(text)
  if not e.v then
    redis.call('SET', key, text, 'PX', ttl)
    e.v = a
  else
    e.v = e.v + a
    e.text = not e.add and text or nil
    e.add = (e.add or 0) + a
  end
end
local function ctr_flush()
  for key, e in pairs(C) do
    if e.add then redis.call('INCRBYFLOAT', key, e.text or string.format('%.17g', e.add)) end
  end
end
-- A lease set: expired leases pruned once (the clock stands still in a script run), so the live count
-- is the set's size, kept as leases are added and removed.
local function lease_set(key)
  local e = L[key]
  if not e then
    redis.call('ZREMRANGEBYSCORE', key, '-inf', now)
    e = { n = redis.call('ZCARD', key) }
    L[key] = e
  end
  return e
end
`;

// The limit calls of a batch: each names a shape (its op, keys and the fields that stay the same from
// request to request, sent once per batch) and brings its own values (lease ids, amounts).
const LIMIT_CALLS = `
-- Shapes (ARGV[1], one JSON array): <op> <key count> <field count> <key index…> <fields…>.
-- Fields per key, by op:
--   'a' admit, 'i' inspect: 'w' windowMs width limit cost | 'c' limit | 'l' limit leaseMs
--     (an admission's 'l' takes a lease id from the call's values);
--   'c' charge: 'r' (a lease given back: its id is a value) | 'w' windowMs width (the amount is a value)
--     | 'c' (amount and ttlMs are values; a fractional amount comes as text, so INCRBYFLOAT sees the
--     caller's decimal);
--   'g' read counters: no fields.
local function parse_shapes(tk)
  local t = #tk
  local shapes, p = {}, 1
  while p <= t do
    local op, n, m = tk[p], tk[p + 1], tk[p + 2]
    local checks, slots, q = {}, 0, p + 3 + n
    for i = 1, n do
      local c = { k = tk[q], key = KEYS[tk[p + 2 + i]] }
      if op == 'c' then
        if c.k == 'w' then
          c.w, c.b = tk[q + 1], tk[q + 2]
          q = q + 3
        else
          q = q + 1
        end
        slots = slots + (c.k == 'c' and 2 or 1)
      elseif op ~= 'g' then
        if c.k == 'w' then
          c.w, c.b, c.l, c.cost = tk[q + 1], tk[q + 2], tk[q + 3], tk[q + 4]
          q = q + 5
        elseif c.k == 'c' then
          c.l = tk[q + 1]
          q = q + 2
        else
          c.l, c.m = tk[q + 1], tk[q + 2]
          q = q + 3
          if op == 'a' then slots = slots + 1 end
        end
      end
      checks[i] = c
    end
    shapes[#shapes + 1] = { op = op, checks = checks, slots = slots }
    p = p + 3 + n + m
  end
  return shapes
end

-- Each call writes its reply into the batch's one flat reply array "out" after index o and returns
-- the index of its last entry (one array, not one per call: Redis converts every nested table with a
-- deferred length and a look-up of six special fields).
-- An admission's reply: <ok 1|0> <failed index|-1> <retry ms> <used> <reset ms> <used> <reset ms> …,
-- a state per check (numbers; a fractional one as text).
-- A counter's or lease set's reset costs a call more (PTTL / ZRANGE): it is read when inspecting or
-- refusing, and left 0 ("unknown") on an admission that passes, which uses only rpm/tpm resets.
local function admit_call(checks, vals, p, charge, out, o)
  local o0, failed, retry = o, -1, 0
  out[o + 1], out[o + 2], out[o + 3] = 1, -1, 0
  o = o + 3
  local n = #checks
  for i = 1, n do
    local c = checks[i]
    local key, k, l = c.key, c.k, c.l
    local used, reset, pass, wait = 0, 0, true, 0
    if k == 'w' then
      local w, b, cost = c.w, c.b, c.cost
      local e = win(key, w, b)
      local live, sum = e.live, e.sum
      used = sum
      if #live > 0 then reset = math.max(0, leaves_at(live[1], b, w) - now) end
      pass = sum < l and sum + cost <= l
      if not pass then
        if cost > l then
          wait = w
        else
          local left = sum
          for j = 1, #live, 2 do
            left = left - live[j + 1]
            if left < l and left + cost <= l then
              wait = math.max(0, leaves_at(live[j], b, w) - now)
              break
            end
          end
        end
      end
    elseif k == 'c' then
      used = ctr(key).v or 0
      pass = used < l
      if not pass or not charge then
        local ttl = redis.call('PTTL', key)
        if ttl > 0 then reset = ttl end
        wait = reset
      end
    else
      local e = lease_set(key)
      used = e.n
      pass = used < l
      if used > 0 and (not pass or not charge) then
        reset = math.max(0, tonumber(redis.call('ZRANGE', key, 0, 0, 'WITHSCORES')[2]) - now)
      end
      if not pass then wait = reset end
    end
    out[o + 1], out[o + 2] = out_num(used), out_num(reset)
    o = o + 2
    if not pass then
      if failed < 0 then failed = i - 1 end
      if wait > retry then retry = wait end
    end
  end
  -- All passed: record (every check passed, so each window's and lease set's state is already read).
  if failed < 0 and charge then
    for i = 1, n do
      local c = checks[i]
      local k = c.k
      if k == 'w' then
        if c.cost > 0 then win_add(W[c.key], c.cost) end
      elseif k == 'l' then
        local key, m, e = c.key, c.m, L[c.key]
        redis.call('ZADD', key, txt(now + m), vals[p])
        p = p + 1
        e.n = e.n + 1
        -- The key outlives its longest lease; renewed to twice the lease time, so most admissions
        -- find it long enough.
        if e.ttl == nil then e.ttl = redis.call('PTTL', key) end
        if e.ttl < m then
          redis.call('PEXPIRE', key, 2 * m)
          e.ttl = 2 * m
        end
      end
    end
  end
  if failed >= 0 then out[o0 + 1], out[o0 + 2], out[o0 + 3] = 0, failed, out_num(retry) end
  return o
end

-- Settle sends the releases first. Its reply: 1.
local function charge_call(checks, vals, p, out, o)
  for i = 1, #checks do
    local c = checks[i]
    local key, k = c.key, c.k
    if k == 'r' then
      local gone = redis.call('ZREM', key, vals[p])
      local e = L[key]
      if e then e.n = e.n - gone end
      p = p + 1
    elseif k == 'w' then
      local a = vals[p]
      p = p + 1
      if a ~= 0 then win_add(win(key, c.w, c.b), a) end
    else
      ctr_add(key, vals[p], vals[p + 1])
      p = p + 2
    end
  end
  out[o + 1] = 1
  return o + 1
end

-- Period counters' values, in order (0 for an absent one).
local function read_call(checks, out, o)
  for i = 1, #checks do out[o + i] = out_num(ctr(checks[i].key).v or 0) end
  return o + #checks
end
`;

/**
 * Several limit calls in one script run, evaluated one by one in order (each sees what the previous
 * left), so the outcome is that of one script per call; what it saves is the per-command cost on
 * both sides. KEYS: the batch's keys, each once. ARGV[1]: the batch's shapes (LIMIT_CALLS), each once;
 * ARGV[2]: the calls, each `<shape index> <values…>`; both JSON arrays of numbers and strings, which
 * cjson.decode reads in C (a text of tokens split with string.gmatch, and tonumber on each, cost the
 * server ≈ 0.13 µs per token, two to three times the decode). A shape's fields are read once per
 * batch, not once per request.
 * Returns the calls' replies one after the other in one flat array (each call's length is known to its
 * caller); a call that failed (a key of the wrong type, say) answers one string, "!<error>", instead,
 * and fails alone, not the calls batched with it.
 */
export const LIMITS = `
${NOW}
${WINDOW_HELPERS}
${BATCH_STATE}
${LIMIT_CALLS}
local shapes = parse_shapes(cjson.decode(ARGV[1]))
local vals = cjson.decode(ARGV[2])
local t = #vals
local out, o, p = {}, 0, 1
while p <= t do
  local s = shapes[vals[p]]
  local op, ok, res = s.op
  if op == 'c' then
    ok, res = pcall(charge_call, s.checks, vals, p + 1, out, o)
  elseif op == 'g' then
    ok, res = pcall(read_call, s.checks, out, o)
  else
    ok, res = pcall(admit_call, s.checks, vals, p + 1, op == 'a', out, o)
  end
  if ok then
    o = res
  else
    -- A failed call's reply is one string, "!<error>", in place of whatever it had written.
    local j = o + 1
    while out[j] ~= nil do
      out[j] = nil
      j = j + 1
    end
    o = o + 1
    out[o] = '!' .. (type(res) == 'table' and (res.err or 'error') or tostring(res))
  end
  p = p + 1 + s.slots
end
win_flush()
ctr_flush()
return out
`;

/** Records (runtime keys and teams), mirroring record-logic.ts: every expectation is checked before
 * anything is written. KEYS: records hash, version, audit list, change list. ARGV: audit entry, how
 * many audit entries to keep, how many change entries to keep, then per write: id, 'put'|'del',
 * value, 'any'|'absent'|'equal', expected value. The change list gets `<version>:<ids as JSON>`,
 * newest first (READ_RECORD_CHANGES). Returns {1, version} or {0, failed index (0-based), current
 * value or false}. */
export const WRITE_RECORDS = `
local n = (#ARGV - 3) / 5
for i = 0, n - 1 do
  local base = 4 + i * 5
  local mode = ARGV[base + 3]
  if mode ~= 'any' then
    local current = redis.call('HGET', KEYS[1], ARGV[base])
    if mode == 'absent' and current then return {0, i, current} end
    if mode == 'equal' and current ~= ARGV[base + 4] then return {0, i, current} end
  end
end
local ids = {}
for i = 0, n - 1 do
  local base = 4 + i * 5
  ids[#ids + 1] = ARGV[base]
  if ARGV[base + 1] == 'del' then redis.call('HDEL', KEYS[1], ARGV[base])
  else redis.call('HSET', KEYS[1], ARGV[base], ARGV[base + 2]) end
end
local version = redis.call('INCR', KEYS[2])
redis.call('LPUSH', KEYS[3], ARGV[1])
redis.call('LTRIM', KEYS[3], 0, tonumber(ARGV[2]) - 1)
redis.call('LPUSH', KEYS[4], version .. ':' .. (n > 0 and cjson.encode(ids) or '[]'))
redis.call('LTRIM', KEYS[4], 0, tonumber(ARGV[3]) - 1)
return {1, version}
`;

/** The records changed after a version (RecordStore.readRecordChanges), in one script so the version,
 * the change list and the values are of one moment. KEYS: records hash, version, change list. ARGV:
 * since. Returns {version, 1, id, value or false, …} with each changed id once, or {version, 0} when
 * the list does not hold every version after `since` (then the caller reads everything). */
export const READ_RECORD_CHANGES = `
local v = tonumber(redis.call('GET', KEYS[2]) or '0')
local since = tonumber(ARGV[1])
local n = v - since
if n == 0 then return {v, 1} end
if since < 0 or n < 0 or n > tonumber(ARGV[2]) then return {v, 0} end
local entries = redis.call('LRANGE', KEYS[3], 0, n - 1)
if #entries ~= n then return {v, 0} end
local out = {v, 1}
local seen = {}
for i = 1, n do
  local e = entries[i]
  local sep = string.find(e, ':', 1, true)
  if not sep or tonumber(string.sub(e, 1, sep - 1)) ~= v - i + 1 then return {v, 0} end
  for _, id in ipairs(cjson.decode(string.sub(e, sep + 1))) do
    if not seen[id] then
      seen[id] = true
      out[#out + 1] = id
      out[#out + 1] = redis.call('HGET', KEYS[1], id)
    end
  end
end
return out
`;
