// A scripted upstream model server speaking Anthropic Messages, OpenAI Responses and Chat Completions on one
// loopback port. It stands in for vendors in the conformance matrix, the real-client end-to-end tests and the
// router tests. Independent of src/ on purpose: the gateway must not be tested against its own codecs.
export { startScriptedUpstream } from './server.js';
export { agentLoopReply, DEFAULT_COMMAND } from './agent-loop.js';
export type { Protocol, ReceivedRequest, Reply, ReplyBlock, ScriptedUpstream, ScriptedUpstreamOptions, StopKind, UsageScript } from './types.js';
