// Lua run inside Redis so that each operation is one atomic step for every instance sharing the
// server, with Redis's own TIME as the clock. The rules mirror admission-logic.ts (the contract suite
// runs both). Keys outside KEYS (evicted documents, the per-check lease ids) make these scripts
// unsuitable for Redis Cluster; a single primary (or Sentinel) is what they are written for.

const NOW = `
local __t = redis.call('TIME')
local now = tonumber(__t[1]) * 1000 + math.floor(tonumber(__t[2]) / 1000)
`;

/** KEYS: doc, order zset, meta hash, sizes hash. ARGV: id, owner, value, bytes, ttlMs, maxBytes, doc key prefix. */
export const PUT_DOC = `
local prev = redis.call('HGET', KEYS[4], ARGV[1])
if prev then
  redis.call('HINCRBY', KEYS[3], 'bytes', -tonumber(prev))
end
local seq = redis.call('HINCRBY', KEYS[3], 'seq', 1)
redis.call('DEL', KEYS[1])
redis.call('HSET', KEYS[1], 'o', ARGV[2], 'v', ARGV[3])
redis.call('PEXPIRE', KEYS[1], ARGV[5])
redis.call('HSET', KEYS[4], ARGV[1], ARGV[4])
redis.call('ZADD', KEYS[2], seq, ARGV[1])
local bytes = redis.call('HINCRBY', KEYS[3], 'bytes', ARGV[4])
local max = tonumber(ARGV[6])
-- Oldest written first: expired ones, then whatever is needed to get back under the bound.
for _ = 1, 10000 do
  local first = redis.call('ZRANGE', KEYS[2], 0, 0)
  if #first == 0 then break end
  local id = first[1]
  local key = ARGV[7] .. id
  if bytes <= max and redis.call('EXISTS', key) == 1 then break end
  local size = tonumber(redis.call('HGET', KEYS[4], id) or '0')
  redis.call('ZREM', KEYS[2], id)
  redis.call('HDEL', KEYS[4], id)
  redis.call('DEL', key)
  bytes = redis.call('HINCRBY', KEYS[3], 'bytes', -size)
end
return bytes
`;

/** KEYS: doc, order zset, meta hash, sizes hash. ARGV: id, owner. Returns 1 when deleted. */
export const DELETE_DOC = `
local owner = redis.call('HGET', KEYS[1], 'o')
if owner ~= ARGV[2] then return 0 end
local size = tonumber(redis.call('HGET', KEYS[4], ARGV[1]) or '0')
redis.call('DEL', KEYS[1])
redis.call('ZREM', KEYS[2], ARGV[1])
redis.call('HDEL', KEYS[4], ARGV[1])
redis.call('HINCRBY', KEYS[3], 'bytes', -size)
return 1
`;

// Window members are "<amount>:<sequence>" scored by time; the sequence (KEYS[#KEYS]) keeps equal
// amounts recorded in the same millisecond distinct.
const WINDOW_HELPERS = `
local function window_entries(key, windowMs)
  redis.call('ZREMRANGEBYSCORE', key, '-inf', now - windowMs)
  local raw = redis.call('ZRANGE', key, 0, -1, 'WITHSCORES')
  local times, amounts, sum = {}, {}, 0
  for i = 1, #raw, 2 do
    local amount = tonumber(string.match(raw[i], '^([^:]+):'))
    times[#times + 1] = tonumber(raw[i + 1])
    amounts[#amounts + 1] = amount
    sum = sum + amount
  end
  return times, amounts, sum
end
local function window_add(key, seqKey, windowMs, amount)
  local seq = redis.call('INCR', seqKey)
  redis.call('ZADD', key, now, tostring(amount) .. ':' .. seq)
  redis.call('PEXPIRE', key, windowMs)
end
`;

/**
 * KEYS: one per check, then the sequence key. ARGV[1]: JSON checks
 * [{k:'w',w,l,c} | {k:'c',l} | {k:'l',l,m,id}], ARGV[2]: '1' to charge (admit) or '0' (inspect).
 * Returns JSON {ok, s:[[used,limit,reset]…], f, r}.
 */
export const ADMIT = `
${NOW}
${WINDOW_HELPERS}
local checks = cjson.decode(ARGV[1])
local charge = ARGV[2] == '1'
local seqKey = KEYS[#KEYS]
local states, failed, retry = {}, -1, 0
for i, c in ipairs(checks) do
  local key = KEYS[i]
  local used, reset, pass, wait = 0, 0, true, 0
  if c.k == 'w' then
    local times, amounts, sum = window_entries(key, c.w)
    used = sum
    if #times > 0 then reset = math.max(0, times[1] + c.w - now) end
    pass = sum < c.l and sum + c.c <= c.l
    if not pass then
      if c.c > c.l then
        wait = c.w
      else
        local left = sum
        for j = 1, #times do
          left = left - amounts[j]
          if left < c.l and left + c.c <= c.l then
            wait = math.max(0, times[j] + c.w - now)
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
  return cjson.encode({ ok = failed < 0, s = states, f = failed, r = retry })
end
for i, c in ipairs(checks) do
  local key = KEYS[i]
  if c.k == 'w' then
    if c.c > 0 then window_add(key, seqKey, c.w, c.c) end
  elseif c.k == 'l' then
    redis.call('ZADD', key, now + c.m, c.id)
    if redis.call('PTTL', key) < c.m then redis.call('PEXPIRE', key, c.m) end
  end
end
return cjson.encode({ ok = true, s = states, f = -1, r = 0 })
`;

/** KEYS: one per charge, then the sequence key. ARGV[1]: JSON [{k:'w',w,a} | {k:'c',a,t}]. */
export const CHARGE = `
${NOW}
${WINDOW_HELPERS}
local charges = cjson.decode(ARGV[1])
local seqKey = KEYS[#KEYS]
for i, c in ipairs(charges) do
  local key = KEYS[i]
  if c.k == 'w' then
    if c.a ~= 0 then
      redis.call('ZREMRANGEBYSCORE', key, '-inf', now - c.w)
      window_add(key, seqKey, c.w, c.a)
    end
  elseif redis.call('EXISTS', key) == 1 then
    redis.call('INCRBYFLOAT', key, c.a)
  else
    redis.call('SET', key, c.a, 'PX', c.t)
  end
end
return 1
`;
