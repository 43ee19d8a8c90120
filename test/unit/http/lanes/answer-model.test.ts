// The caller's model name put back into a non-streamed pass-through answer: spliced into the
// upstream's text when the top-level key is unambiguous, re-serialised otherwise; the same JSON either way.
import { describe, expect, it } from 'vitest';
import { answerWithModel, spliceNestedModel } from '../../../../src/http/lanes/answer-model.js';
import { topLevelString } from '../../../../src/drivers/top-level-string.js';

const rename = (text: string) => answerWithModel(text, JSON.parse(text) as Record<string, unknown>, 'alias');

describe('answerWithModel', () => {
  it('splices the top-level model, leaving every other byte as the upstream sent it', () => {
    const text = '{"id":"msg_1","content":[{"type":"text","text":"say \\"model\\": [x] {y}"}],\n "model" :  "claude-up","usage":{"input_tokens":1}}';
    expect(rename(text)).toBe(text.replace('"claude-up"', '"alias"'));
  });

  it('skips nested "model" keys and brackets inside strings', () => {
    const text = '{"meta":{"model":"nested"},"s":"}{][","model":"up","n":1}';
    expect(topLevelString(text, 'model')).toEqual([text.indexOf('"up"'), text.indexOf('"up"') + 4]);
    expect(rename(text)).toBe('{"meta":{"model":"nested"},"s":"}{][","model":"alias","n":1}');
  });

  it('re-serialises when another "model" or a \\u escape follows (a repeated key is possible)', () => {
    for (const text of ['{"model":"up","output":[{"model":"x"}]}', '{"model":"up","model":"up"}', '{"model":"up","mod\\u0065l":"up"}', '{"model":"up","t":"\\u00e9"}']) {
      const obj = JSON.parse(text) as Record<string, unknown>;
      expect(answerWithModel(text, obj, 'alias')).toBe(JSON.stringify({ ...obj, model: 'alias' }));
    }
  });

  it('no top-level model string: the object with the model set', () => {
    expect(rename('{"id":"x","model":null}')).toBe('{"id":"x","model":"alias"}');
    expect(rename('{"id":"x"}')).toBe('{"id":"x","model":"alias"}');
  });
});

describe('spliceNestedModel (stream events)', () => {
  it('replaces the model of the object under the key, not a top-level or deeper one', () => {
    const text = '{"type":"response.in_progress","sequence_number":1,"response":{"id":"r","meta":{"model":"deep"},"model":"up","status":"in_progress"},"model_note":"x"}';
    expect(spliceNestedModel(text, 'response', 'alias')).toBe(text.replace('"model":"up"', '"model":"alias"'));
    const start = '{"type":"message_start","message":{"id":"m","model":"up","usage":{"input_tokens":1}}}';
    expect(spliceNestedModel(start, 'message', 'alias')).toBe(start.replace('"up"', '"alias"'));
  });

  it('undefined when the key holds no object, the object has no model string, or a later "model" makes it ambiguous', () => {
    expect(spliceNestedModel('{"response":null}', 'response', 'a')).toBeUndefined();
    expect(spliceNestedModel('{"response":{"id":"r"},"model":"top"}', 'response', 'a')).toBeUndefined();
    expect(spliceNestedModel('{"response":{"model":"up","tools":[{"parameters":{"model":{}}}]}}', 'response', 'a')).toBeUndefined();
  });
});
