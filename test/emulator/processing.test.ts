// Background processing (D9): the state paths, observed by listing, and every filter.
import { strict as assert } from 'node:assert';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { call, list, upload, useFreshEmulator, waitForStatus } from './support';

const FIXTURES = join(__dirname, '..', 'fixtures', 'emulator');

/** Polls the listing until the file is final and returns every status seen, in order. */
async function observeStates(emu: Parameters<typeof list>[0], volume: string, uuid: string): Promise<string[]> {
  const seen: string[] = [];
  for (;;) {
    const info = (await list(emu, volume)).json.infoz.find((f: any) => f.uuid === uuid);
    if (seen[seen.length - 1] !== info.status) seen.push(info.status);
    if (info.status === 'done' || info.status === 'na') return seen;
    await new Promise((resolve) => setTimeout(resolve, 15));
  }
}

describe('emulator: processing states (slow pace, every state observable)', () => {
  // A pace far above one listing round trip, so every state is seen even on a busy machine.
  const s = useFreshEmulator({ stepMs: 300 });
  const text = 'Penguins live in the southern hemisphere. Emperor penguins breed in winter.';

  it('do_chunking=1: uploaded → waiting → chunking → embedding → indexing → done', async () => {
    const [info] = await upload(s.emu, 'states', [{ name: 'p.txt', content: text }], 1);
    assert.deepEqual(await observeStates(s.emu, 'states', info.uuid), ['uploaded', 'waiting', 'chunking', 'embedding', 'indexing', 'done']);
  });

  it('do_chunking=2: uploaded → waiting → chunking → indexing → na (chunks kept, explained)', async () => {
    const [info] = await upload(s.emu, 'states', [{ name: 'p2.txt', content: text }], 2);
    assert.deepEqual(await observeStates(s.emu, 'states', info.uuid), ['uploaded', 'waiting', 'chunking', 'indexing', 'na']);
    const final = (await list(s.emu, 'states')).json.infoz.find((f: any) => f.uuid === info.uuid);
    assert.match(final.status_detail, /do_chunking=2/);
  });

  it('do_chunking=0 (the default): uploaded → waiting → na', async () => {
    const form = new FormData();
    form.append('volume', 'states');
    form.append('embedding', 'emu-embed');
    form.append('file', new Blob([text]), 'p0.txt');
    const info = (await call(s.emu, 'POST', '/ksm/rag/v5/files', form)).json.infoz[0];
    assert.deepEqual(await observeStates(s.emu, 'states', info.uuid), ['uploaded', 'waiting', 'na']);
  });

  it('a binary file: uploaded → waiting → chunking → na with status_detail, and the server keeps serving', async () => {
    const binary = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0, 0, 0, 13, 0xff, 0xfe, 0, 1]);
    const [info] = await upload(s.emu, 'states', [{ name: 'image.png', content: binary }], 1);
    assert.deepEqual(await observeStates(s.emu, 'states', info.uuid), ['uploaded', 'waiting', 'chunking', 'na']);
    const final = (await list(s.emu, 'states')).json.infoz.find((f: any) => f.uuid === info.uuid);
    assert.match(final.status_detail, /binary/);
    assert.equal((await list(s.emu, 'states')).status, 200);
  });

  it('waitForIdle resolves once nothing is processing', async () => {
    const infos = await upload(
      s.emu,
      'idle',
      [
        { name: 'a.txt', content: 'a b c' },
        { name: 'b.txt', content: 'd e f' },
      ],
      1,
    );
    await s.emu.waitForIdle();
    const statuses = (await list(s.emu, 'idle')).json.infoz.map((f: any) => f.status);
    assert.deepEqual(
      statuses,
      infos.map(() => 'done'),
    );
  });
});

describe('emulator: filters (every format ends searchable with its own text)', () => {
  const s = useFreshEmulator({ stepMs: 1 });

  const cases: Array<[string, string | Uint8Array, string]> = [
    ['notes.txt', 'The plain text mentions the lighthouse keeper.', 'lighthouse keeper'],
    ['guide.md', '# Guide\n\nThe markdown mentions *orchard* pruning.', 'orchard pruning'],
    ['main.ts', 'export function computeInvoiceTotal(lines: number[]) { return lines.length; }', 'computeInvoiceTotal'],
    ['data.json', '{"city": "Reykjavik", "topic": "geothermal heating"}', 'geothermal heating'],
    ['table.csv', 'name,topic\nanna,volcano monitoring\n', 'volcano monitoring'],
    ['page.html', '<html><body><h1>Title</h1><p>The html mentions <b>saffron</b> harvest.</p><script>var hidden = 1;</script></body></html>', 'saffron harvest'],
    ['sample.pdf', readFileSync(join(FIXTURES, 'sample.pdf')), 'glacier survey'],
    ['sample.docx', readFileSync(join(FIXTURES, 'sample.docx')), 'zebra migration'],
  ];

  for (const [name, content, phrase] of cases) {
    it(`${name}: becomes done and the agent finds "${phrase}" in it`, async () => {
      const volume = `filter-${name.replace(/\W/g, '-')}`;
      const [info] = await upload(s.emu, volume, [{ name, content }], 1);
      const final = await waitForStatus(s.emu, volume, info.uuid, ['done', 'na']);
      assert.equal(final.status, 'done', final.status_detail);
      const answer = await call(s.emu, 'POST', '/v1/apps/chat-messages', {
        agent_id: 'rag-agent',
        query: `what about ${phrase}?`,
        stream: false,
        context: { model: 'emu-chat', volumes: [volume] },
      });
      assert.equal(answer.status, 200, answer.text);
      const citation = answer.json.citations.find((c: any) => c.file_id === info.uuid);
      assert.ok(citation, `cites ${name}`);
      assert.ok(citation.snippet.toLowerCase().includes(phrase.toLowerCase()), `snippet "${citation.snippet}" has "${phrase}"`);
      if (name.endsWith('.html')) {
        assert.ok(!citation.snippet.includes('<'), 'tags stripped');
        assert.ok(!citation.snippet.includes('hidden'), 'scripts dropped');
      }
    });
  }
});
