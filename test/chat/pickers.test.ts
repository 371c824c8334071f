// The pure parts of the model picker and the conversations quick pick: which models are
// offered in which order, what is remembered, what a search result shows, what a rename
// starts from; and the host's checks of the new webview messages.
import { strict as assert } from 'node:assert';
import { createConversation, type ModelOptions } from '../../src/chat/core/conversationModel';
import { fullTitle, matchSnippet } from '../../src/chat/core/conversationText';
import { MAX_RECENT_MODELS, modelChoices, modelIdProblem, parseRecentModels, withRecentModel } from '../../src/chat/core/modelChoices';
import { parseWebviewMessage } from '../../src/chat/panel/messageValidation';

const options: ModelOptions = { models: ['emu-chat', 'emu-large'], reasoningModels: ['emu-reasoner'], defaultModel: 'emu-chat', agentId: 'rag-agent', agentModel: 'emu-agent' };

describe('model picker choices', () => {
  it('lists recent models first, then every model from settings once; the current one never hides the others', () => {
    const choices = modelChoices(options, ['emu-large', 'my-own-model'], 'emu-large');
    assert.deepEqual(
      choices.map((c) => [c.model, c.group]),
      [
        ['emu-large', 'recent'],
        ['my-own-model', 'recent'],
        ['emu-chat', 'settings'],
        ['emu-agent', 'settings'],
        ['emu-reasoner', 'settings'],
      ],
    );
    assert.deepEqual(choices[0].notes, ['current']);
    assert.deepEqual(choices.find((c) => c.model === 'emu-chat')?.notes, ['default for new chats']);
    assert.deepEqual(choices.find((c) => c.model === 'emu-reasoner')?.notes, ['reasoning']);
  });

  it('lists a model typed before (not in settings, never picked) as the current one', () => {
    const choices = modelChoices(options, [], 'typed-by-hand');
    assert.deepEqual(choices[0], { model: 'typed-by-hand', group: 'recent', notes: ['current'] });
    assert.equal(choices.length, 5);
  });

  it('remembers picks newest first, each once, at most MAX_RECENT_MODELS, ignoring what is not a model list', () => {
    let stored: unknown = undefined;
    for (const model of ['a', 'b', 'a', 'c']) stored = withRecentModel(stored, model);
    assert.deepEqual(stored, ['c', 'a', 'b']);
    for (let i = 0; i < 20; i++) stored = withRecentModel(stored, `m${i}`);
    assert.equal((stored as string[]).length, MAX_RECENT_MODELS);
    assert.deepEqual(parseRecentModels({ a: 1 }), []);
    assert.deepEqual(parseRecentModels(['ok', 3, 'has space', '']), ['ok']);
  });

  it('accepts any model id without spaces or control characters (free entry), the host checks the same', () => {
    assert.equal(modelIdProblem('org/model-7b:q4'), undefined);
    assert.match(modelIdProblem('two words') ?? '', /no spaces/);
    assert.match(modelIdProblem('  ') ?? '', /Type a model id/);
    assert.match(modelIdProblem('x'.repeat(201)) ?? '', /at most 200/);
    assert.deepEqual(parseWebviewMessage({ type: 'setModel', model: ' org/model ' }), { type: 'setModel', model: 'org/model' });
    assert.equal(parseWebviewMessage({ type: 'setModel', model: 'two words' }), undefined);
  });
});

describe('conversations quick pick text', () => {
  const text = 'How does the release process work? · Tell me about the onboarding checklist in detail · You asked: "How does the release process work?" ' + 'filler words '.repeat(40);

  it('shows the text around the match, not the start', () => {
    const snippet = matchSnippet(text, 'onboarding checklist') ?? '';
    assert.ok(snippet.includes('onboarding checklist'), snippet);
    assert.ok(snippet.startsWith('…') && snippet.endsWith('…'), snippet);
    assert.ok(snippet.length <= 150, `${snippet.length} characters`);
    assert.equal(matchSnippet(text, 'ONBOARDING'), matchSnippet(text, 'onboarding'), 'case does not matter');
    assert.ok(matchSnippet(text, 'checklist zebra')?.includes('checklist'), 'else the first word that matches');
    assert.equal(matchSnippet(text, 'zebra'), undefined);
    assert.equal(matchSnippet(text, '  '), undefined);
    assert.equal(matchSnippet(text, 'How does'), `${text.slice(0, 140).trim()}…`, 'a match at the start shows the start');
  });

  it('starts a rename from the whole title, mending one an older version cut at 60 characters', () => {
    const question = 'How should a team of five plan the release of a large monorepo with many packages?';
    const conversation = createConversation('chat', options);
    conversation.turns.push({ id: 't-000000000001', role: 'user', content: question, createdAt: 1 });
    conversation.title = `${question.slice(0, 59).trimEnd()}…`;
    assert.equal(fullTitle(conversation), question);
    conversation.title = 'Renamed by the user…';
    assert.equal(fullTitle(conversation), 'Renamed by the user…', 'a title the user chose stays as it is');
    conversation.title = question;
    assert.equal(fullTitle(conversation), question);
  });
});

describe('answer messages from the webview', () => {
  const turnId = 't-0123456789ab';
  it('accepts regenerate, copyAnswer, editQuestion and pickModel exactly, refuses anything else', () => {
    assert.deepEqual(parseWebviewMessage({ type: 'regenerate', turnId }), { type: 'regenerate', turnId });
    assert.deepEqual(parseWebviewMessage({ type: 'copyAnswer', turnId }), { type: 'copyAnswer', turnId });
    assert.deepEqual(parseWebviewMessage({ type: 'editQuestion', turnId, text: 'better question' }), { type: 'editQuestion', turnId, text: 'better question' });
    assert.deepEqual(parseWebviewMessage({ type: 'pickModel' }), { type: 'pickModel' });
    for (const bad of [
      { type: 'regenerate', turnId: '../etc' },
      { type: 'copyAnswer', turnId, text: 'smuggled' },
      { type: 'editQuestion', turnId, text: '   ' },
      { type: 'editQuestion', turnId, text: 'x'.repeat(200_001) },
      { type: 'editQuestion', text: 'no turn' },
      { type: 'pickModel', model: 'x' },
    ]) {
      assert.equal(parseWebviewMessage(bad), undefined, JSON.stringify(bad).slice(0, 80));
    }
  });
});
