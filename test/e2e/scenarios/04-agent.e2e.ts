import assert from 'node:assert/strict';
import { ChatView } from '../harness/chat';
import { eventually } from '../harness/eventually';
import { useScenario } from '../harness/scenario';
import { setApiKeyThroughPalette } from '../harness/steps';

const FILE = 'ledger-handbook.md';
const CONTENT = '# Ledger handbook\n\nThe reconciliation worker matches every refund against the ledger each night and flags mismatched invoices for the finance team.\n';
const QUESTION = 'What does the ledger handbook say about the reconciliation worker and refunds?';
const FOLLOW_UP = 'Which team receives the flagged invoices?';

describe('Scenario 4: agent mode — citations name the uploaded file, follow-up stays in the thread', function () {
  this.timeout(180_000);
  const scenario = useScenario('4-agent');
  let chat: ChatView;

  before(async function () {
    const { run, workbench } = scenario;
    const personal = `{${run.emulator.userId}}`;
    const seeded = await run.emulator.uploadFile(personal, FILE, CONTENT, 1);
    await eventually(
      async () => (await run.emulator.listFiles(personal)).find((f) => f.uuid === seeded.uuid)?.status === 'done',
      () => `${FILE} never reached done in the emulator`,
      60_000,
    );
    await setApiKeyThroughPalette(workbench, run.emulator.apiKey);
    chat = new ChatView(workbench);
    await chat.open();
    await chat.newChat();
  });

  it('answers in Agent mode with citations that name the uploaded file', async () => {
    await chat.modeSelect().selectOption('agent');
    await chat.send(QUESTION);
    assert.equal(await chat.waitForAnswerToSettle(), 'done');
    const answer = chat.lastAnswer();
    assert.ok((await chat.answerText(answer)).length > 0, 'the agent answered');
    const citations = answer.locator('[data-testid="citations"]');
    await citations.waitFor({ timeout: 10_000 });
    assert.match(await citations.innerText(), new RegExp(FILE.replace('.', '\\.')));
  });

  it('answers a follow-up in the same thread (the emulator sees one thread with both questions)', async () => {
    await chat.send(FOLLOW_UP);
    assert.equal(await chat.waitForAnswerToSettle(), 'done');
    assert.equal(await chat.assistantTurns().count(), 2, 'both answers stay in the transcript');
    assert.ok((await chat.answerText()).length > 0, 'the follow-up was answered');
    const threads = scenario.run.emulator.agentThreads().filter((t) => t.turns.some((turn) => turn.query.includes(QUESTION)));
    assert.equal(threads.length, 1, `one thread holds the first question; threads: ${JSON.stringify(threads.map((t) => t.id))}`);
    assert.deepEqual(
      threads[0]!.turns.map((turn) => turn.query),
      [QUESTION, FOLLOW_UP],
      'the follow-up continued that thread',
    );
  });
});
