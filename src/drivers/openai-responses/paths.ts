// Paths of the Responses API, relative to a provider's base_url (which ends in `/v1` for OpenAI).
export const RESPONSES_PATH = '/responses';
export const INPUT_TOKENS_PATH = '/responses/input_tokens';
