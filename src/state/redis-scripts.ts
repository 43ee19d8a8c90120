// Lua run inside Redis so that each operation is one atomic step for every instance sharing the
// server, with Redis's own TIME as the clock. The rules mirror admission-logic.ts (the contract suite
// runs both). Keys outside KEYS (evicted documents, the per-check lease ids) make these scripts
// unsuitable for Redis Cluster; a single primary (or Sentinel) is what they are written for.

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
-- The live buckets of a window: flat {bucket, amount, …} and their sum.
local function window_read(key, windowMs, width)
  local raw = redis.call('GET', key)
  local live, sum = {}, 0
  if raw then
    local n = math.floor(#raw / 16)
    if n > 0 then
      local v = { struct.unpack(pairs_fmt(n), raw) }
      for i = 1, 2 * n, 2 do
        if leaves_at(v[i], width, windowMs) > now then
          live[#live + 1] = v[i]
          live[#live + 1] = v[i + 1]
          sum = sum + v[i + 1]
        end
      end
    end
  end
  return live, sum
end
-- Adds an amount to the current bucket of the live buckets just read, and stores the window.
local function window_add(key, live, windowMs, width, amount)
  local bucket = math.floor(now / width)
  local at = #live + 1
  -- Usually the last bucket or a new one at the end; a clock that stepped back finds its place.
  while at > 1 and live[at - 2] > bucket do at = at - 2 end
  if at > 1 and live[at - 2] == bucket then
    live[at - 1] = live[at - 1] + amount
  else
    table.insert(live, at, amount)
    table.insert(live, at, bucket)
  end
  local ttl = leaves_at(live[#live - 1], width, windowMs) - now
  redis.call('SET', key, struct.pack(pairs_fmt(#live / 2), unpack(live)), 'PX', math.max(1, ttl))
end
`;

// One limit call: an admission (or inspection) or a charge, its keys from KEYS[base + 1] on.
const LIMIT_CALLS = `
-- checks: [{k:'w',w,b,l,c} | {k:'c',l} | {k:'l',l,m,id}] (w: window, b: bucket width, l: limit,
-- c: cost, m: lease ms). Returns {ok, s:[[used,limit,reset]…], f, r}.
local function admit_call(base, checks, charge)
  local states, failed, retry, windows = {}, -1, 0, {}
  for i, c in ipairs(checks) do
    local key = KEYS[base + i]
    local used, reset, pass, wait = 0, 0, true, 0
    if c.k == 'w' then
      local live, sum = window_read(key, c.w, c.b)
      -- By key: a key checked twice is recorded twice onto one table, as the hash's increments were.
      if not windows[key] then windows[key] = live end
      used = sum
      if #live > 0 then reset = math.max(0, leaves_at(live[1], c.b, c.w) - now) end
      pass = sum < c.l and sum + c.c <= c.l
      if not pass then
        if c.c > c.l then
          wait = c.w
        else
          local left = sum
          for j = 1, #live, 2 do
            left = left - live[j + 1]
            if left < c.l and left + c.c <= c.l then
              wait = math.max(0, leaves_at(live[j], c.b, c.w) - now)
              break
            end
          end
        end
      end
    elseif c.k == 'c' then
      used = tonumber(redis.call('GET', key) or '0')
      local ttl = redis.call('PTTL', key)
      if ttl > 0 then reset = ttl end
      pass = used < c.l
      if not pass then wait = reset end
    else
      redis.call('ZREMRANGEBYSCORE', key, '-inf', now)
      used = redis.call('ZCARD', key)
      if used > 0 then
        local first = redis.call('ZRANGE', key, 0, 0, 'WITHSCORES')
        reset = math.max(0, tonumber(first[2]) - now)
      end
      pass = used < c.l
      if not pass then wait = reset end
    end
    states[i] = { used, c.l, reset }
    if not pass then
      if failed < 0 then failed = i - 1 end
      if wait > retry then retry = wait end
    end
  end
  if failed >= 0 or not charge then
    return { ok = failed < 0, s = states, f = failed, r = retry }
  end
  for i, c in ipairs(checks) do
    local key = KEYS[base + i]
    if c.k == 'w' then
      if c.c > 0 then window_add(key, windows[key], c.w, c.b, c.c) end
    elseif c.k == 'l' then
      redis.call('ZADD', key, now + c.m, c.id)
      if redis.call('PTTL', key) < c.m then redis.call('PEXPIRE', key, c.m) end
    end
  end
  return { ok = true, s = states, f = -1, r = 0 }
end

-- charges: [{k:'r',id} | {k:'w',w,b,a} | {k:'c',a,t}] (r: a lease given back, a: amount, t: counter
-- ttl ms); settle sends the releases first, so they happen whatever follows.
local function charge_call(base, charges)
  for i, c in ipairs(charges) do
    local key = KEYS[base + i]
    if c.k == 'r' then
      redis.call('ZREM', key, c.id)
    elseif c.k == 'w' then
      if c.a ~= 0 then
        local live = window_read(key, c.w, c.b)
        window_add(key, live, c.w, c.b, c.a)
      end
    elseif redis.call('EXISTS', key) == 1 then
      redis.call('INCRBYFLOAT', key, c.a)
    else
      redis.call('SET', key, c.a, 'PX', c.t)
    end
  end
  return 1
end
`;

/**
 * Several limit calls in one script run, evaluated one by one in order (each sees what the previous
 * left), so the outcome is that of one script per call; what it saves is the per-command cost on
 * both sides. KEYS: every call's keys, in order. ARGV[1]: JSON [{o, n, c}…] (o: 'a' admit,
 * 'i' inspect, 'c' charge; n: how many keys are the call's; c: its checks or charges).
 * Returns JSON: one result per call (admit/inspect {ok, s, f, r}; charge 1).
 */
export const LIMITS = `
${NOW}
${WINDOW_HELPERS}
${LIMIT_CALLS}
local calls = cjson.decode(ARGV[1])
local out, base = {}, 0
for n, call in ipairs(calls) do
  if call.o == 'c' then
    out[n] = charge_call(base, call.c)
  else
    out[n] = admit_call(base, call.c, call.o == 'a')
  end
  base = base + call.n
end
return cjson.encode(out)
`;
