// The webview is untrusted: every message shape, size and range is checked before a handler
// runs, and only http(s) links may leave it.
import { strict as assert } from 'node:assert';
import { MAX_TEXT_CHARS } from '../../src/chat/core/conversationModel';
import { MAX_CODE_CHARS, parseWebviewMessage, safeExternalUrl } from '../../src/chat/panel/messageValidation';
import { newConversationId, newTurnId } from '../../src/chat/core/conversationModel';

describe('chat: webview message validation', () => {
  const turnId = newTurnId();
  const conversationId = newConversationId();

  it('accepts every well-formed message type and returns exactly its fields', () => {
    const valid: unknown[] = [
      { type: 'ready' },
      { type: 'send', text: 'What is in volume docs?' },
      { type: 'stop' },
      { type: 'retry', turnId },
      { type: 'continue', turnId },
      { type: 'setMode', mode: 'agent' },
      { type: 'setModel', model: 'emu-reasoner' },
      { type: 'setThinking', enabled: true },
      { type: 'setParameters', parameters: { temperature: 0.3, topP: 0.75, maxTokens: 512, systemPrompt: 'Be brief', responseFormat: 'json_object', reasoningEffort: 'low' } },
      { type: 'setParameters', parameters: { reasoningBudget: 100 } },
      { type: 'removeAttachment', fileId: 'b7c1-uuid' },
      { type: 'newConversation' },
      { type: 'openConversation', id: conversationId },
      { type: 'copyCode', code: 'let x = 1;' },
      { type: 'insertCode', code: 'let x = 1;' },
      { type: 'newFileWithCode', code: 'print(1)', language: 'python' },
      { type: 'newFileWithCode', code: 'print(1)' },
      { type: 'openLink', href: 'https://example.com/a?b=c' },
      { type: 'openCitation', turnId: 't-0123456789ab', marker: 1 },
      { type: 'openCitation', turnId: 't-0123456789ab', marker: 12 },
      { type: 'removeCode', id: 'x-0123456789ab' },
      { type: 'chooseContextVolumes' },
      { type: 'removeContextVolume', volume: 'docs' },
      { type: 'removeContextVolume', volume: '{dev}' },
      { type: 'chooseContextFiles' },
      { type: 'removeContextFile', fileId: 'b7c1-uuid' },
    ];
    for (const message of valid) assert.deepEqual(parseWebviewMessage(message), message, JSON.stringify(message));
  });

  it('rejects values that are not objects, unknown types and extra fields', () => {
    for (const raw of [null, undefined, 'send', 42, [], [{ type: 'ready' }], {}, { type: 'exec', command: 'rm -rf /' }, { type: 'ready', extra: 1 }]) {
      assert.equal(parseWebviewMessage(raw), undefined, JSON.stringify(raw));
    }
    const withProto = JSON.parse('{"type":"send","text":"hi","__proto__":{"polluted":true}}');
    assert.equal(parseWebviewMessage(withProto), undefined);
  });

  it('rejects wrong field types and oversized text or code', () => {
    const invalid: unknown[] = [
      { type: 'send', text: 42 },
      { type: 'send', text: '   ' },
      { type: 'send', text: 'x'.repeat(MAX_TEXT_CHARS + 1) },
      { type: 'insertCode', code: 'x'.repeat(MAX_CODE_CHARS + 1) },
      { type: 'copyCode', code: { toString: 'x' } },
      { type: 'setMode', mode: 'admin' },
      { type: 'setModel', model: '' },
      { type: 'setModel', model: 'emu chat' },
      { type: 'setModel', model: 'm'.repeat(201) },
      { type: 'setThinking', enabled: 'yes' },
      { type: 'newFileWithCode', code: 'x', language: '../../etc/passwd' },
      { type: 'newFileWithCode', code: 'x', language: 'a'.repeat(65) },
      { type: 'openLink', href: 'h'.repeat(9000) },
      // A citation is named by its answer and marker only: no path, volume or text from the page.
      { type: 'openCitation', turnId: 't-0123456789ab', marker: 0 },
      { type: 'openCitation', turnId: 't-0123456789ab', marker: 1.5 },
      { type: 'openCitation', turnId: 't-0123456789ab', marker: '1' },
      { type: 'openCitation', turnId: '../../etc/passwd', marker: 1 },
      { type: 'openCitation', turnId: 't-0123456789ab', marker: 1, fileId: 'x' },
      { type: 'openCitation', turnId: 't-0123456789ab' },
      { type: 'revealCitation', volume: 'docs', fileId: 'x' },
      { type: 'removeCode', id: 'x-01' },
      { type: 'removeCode', id: 7 },
      { type: 'chooseContextVolumes', volumes: ['docs'] },
      { type: 'removeContextVolume', volume: '' },
      { type: 'removeContextVolume', volume: 'docs\u0000' },
      { type: 'chooseContextFiles', volume: 'docs' },
      { type: 'removeContextFile', fileId: '' },
      { type: 'removeAttachment', fileId: 7 },
    ];
    for (const message of invalid) assert.equal(parseWebviewMessage(message), undefined, JSON.stringify(message).slice(0, 120));
  });

  it('rejects ids that are not ours (they become file names and turn lookups)', () => {
    for (const id of ['../../secrets', 'c-XYZ', `${conversationId}/..`, '', 'c-0123456789abcdef0']) {
      assert.equal(parseWebviewMessage({ type: 'openConversation', id }), undefined, id);
    }
    for (const id of ['t-', 't-zzzzzzzzzzzz', `${turnId}x`, 42]) {
      assert.equal(parseWebviewMessage({ type: 'retry', turnId: id }), undefined, String(id));
    }
  });

  it('rejects parameters outside the reference ranges (D12)', () => {
    const invalid = [
      { temperature: -0.1 },
      { temperature: 2.01 },
      { temperature: Number.NaN },
      { temperature: '1' },
      { topP: 0 },
      { topP: 1.5 },
      { maxTokens: 0 },
      { maxTokens: 1.5 },
      { maxTokens: -3 },
      { responseFormat: 'json_schema' },
      { reasoningEffort: 'max' },
      { reasoningBudget: 0 },
      // The service ignores the budget when an effort is set (D12): refused, not dropped.
      { reasoningEffort: 'low', reasoningBudget: 100 },
      { systemPrompt: 'x'.repeat(MAX_TEXT_CHARS + 1) },
      { unknownKnob: 1 },
    ];
    for (const parameters of invalid) {
      assert.equal(parseWebviewMessage({ type: 'setParameters', parameters }), undefined, JSON.stringify(parameters).slice(0, 80));
    }
    assert.equal(parseWebviewMessage({ type: 'setParameters', parameters: null }), undefined);
    assert.deepEqual(parseWebviewMessage({ type: 'setParameters', parameters: { temperature: 0, topP: 1 } }), {
      type: 'setParameters',
      parameters: { temperature: 0, topP: 1 },
    });
  });

  it('lets only http(s) links leave the webview', () => {
    assert.equal(safeExternalUrl('https://example.com/docs'), 'https://example.com/docs');
    assert.equal(safeExternalUrl('http://example.com'), 'http://example.com/');
    for (const href of [
      'command:workbench.action.terminal.new',
      'command:ksm.clearApiKey',
      'file:///etc/passwd',
      'vscode://settings/ksm.baseUrl',
      'javascript:alert(1)',
      'data:text/html,<script>1</script>',
      'https://user:secret@example.com/',
      '/relative/path',
      'not a url',
      '',
    ]) {
      assert.equal(safeExternalUrl(href), undefined, href);
    }
  });
});
