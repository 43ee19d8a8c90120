// The front doors that take generation requests, once: the request record's `front_door`, the status
// page's rows and lane columns, the drain's cut counts and the in-flight gauges iterate this list, so
// a new door is a codec, a route and a line here.
export const GENERATION_DOORS = ['messages', 'responses', 'chat', 'gemini'] as const;

/** A generation door by the protocol it speaks: Anthropic Messages, OpenAI Responses, OpenAI Chat
 * Completions, Google Gemini. */
export type GenerationDoor = (typeof GENERATION_DOORS)[number];
