// The words the benchmark sends and receives. Requests are ≈600 tokens (a system prompt and a short
// three-turn conversation, the shape an agent or chat client really sends); answers are ≈200 tokens,
// with the quotes, newlines and code a real model writes, so JSON escaping is on the measured path.

export const SYSTEM_PROMPT = [
  'You are Harbor, the operations assistant for the platform team at a mid-sized logistics company.',
  'You help engineers investigate incidents, read dashboards, write runbooks and review configuration changes.',
  'Answer in English unless the user writes in another language. Be concise: prefer short paragraphs and',
  'bulleted lists over long prose, and put commands, file names and configuration keys in backticks.',
  'When you are not sure, say so and suggest how to find out; never invent metric names, hostnames or',
  'ticket numbers. When a question touches production data, remind the user of the data-handling policy:',
  'customer identifiers must not be pasted into chat, and exports need a ticket approved by a team lead.',
  'The main services are `dispatch-api` (Go, behind the edge proxy), `route-planner` (Python workers fed by',
  'a queue), `tracking-ingest` (Kafka consumers) and `billing` (a nightly batch). Dashboards live in Grafana',
  'under the "Platform" folder; alerts page the on-call engineer through the paging system, and every page',
  'must be acknowledged within fifteen minutes. Deployments go through the release pipeline only; manual',
  'changes on hosts are allowed during an incident but must be written down in the incident document.',
  'If the user asks for something destructive (dropping tables, deleting queues, force-pushing), ask them to',
  'confirm and to name the rollback plan before you give the exact commands.',
].join(' ');

export const USER_TURN_1 = [
  'Morning! Since about 06:40 UTC the p99 latency of `dispatch-api` has gone from roughly 180 ms to just over',
  '900 ms, while p50 barely moved (42 ms to 47 ms). Error rate is flat at 0.2%. Nothing was deployed overnight',
  'according to the release pipeline, but the database team did rotate the read replica certificates at 06:30.',
  'The "Platform / dispatch-api" dashboard shows the connection pool wait time panel climbing in steps, and the',
  'pool size is still 40 per instance. We run 12 instances. What would you look at first, and in what order?',
].join(' ');

export const ASSISTANT_TURN_1 = [
  'The shape (p99 up, p50 flat, errors flat, pool wait climbing in steps) points at connection churn rather',
  'than slow queries. Three checks, in order:',
  '\n\n1. **TLS handshakes to the replicas.** If the new certificates broke session resumption, every new',
  'connection pays a full handshake. Compare the handshake-duration panel before and after 06:30.',
  '\n2. **Pool recycling.** Check whether `max_conn_lifetime` is short; with full handshakes, recycling 40',
  'connections per instance shows up exactly as stepped waits.',
  '\n3. **Replica health.** Confirm both replicas are in rotation; losing one doubles the load on the other.',
].join(' ');

export const USER_TURN_2 = [
  'Handshake duration went from 3 ms to 38 ms at 06:31 and `max_conn_lifetime` is 5 minutes, so that fits.',
  'Both replicas are healthy. Can you write the short incident note for the channel, say what we should change',
  'right now to stop the bleeding, and what the follow-up ticket should ask the database team to fix?',
].join(' ');

/** ≈200 tokens: the answer every fake upstream gives, whole or in deltas. */
export const ANSWER_TEXT = [
  '**Incident note (dispatch-api p99 latency)**',
  '\n\nSince 06:31 UTC, p99 latency of `dispatch-api` rose from ~180 ms to ~900 ms. Cause: the read replica',
  'certificate rotation at 06:30 disabled TLS session resumption, so each new database connection now costs a',
  'full handshake (3 ms → 38 ms), and connections are recycled every 5 minutes. No data loss, error rate normal.',
  '\n\n**Mitigation now**',
  '\n- Raise `max_conn_lifetime` from `5m` to `60m` on all 12 instances (config change through the pipeline,',
  'about 10 minutes).',
  '\n- Watch the "pool wait" panel: the steps should flatten within one lifetime window.',
  '\n\n**Follow-up ticket for the database team**',
  '\n- Restore session resumption on the replicas (session tickets or a shared session cache) and add a',
  'handshake-duration check to the certificate rotation runbook, so the next rotation is "boring" again.',
].join(' ');
