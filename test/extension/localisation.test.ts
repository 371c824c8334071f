// Localisation (issue 26): package.json's texts live in package.nls.json, the code's in
// l10n/bundle.l10n.json (exported by `npm run l10n`, committed). Under a pseudo-locale made
// here by @vscode/l10n-dev (qps-ploc: every letter replaced by an accented one, placeholders
// and codicons kept), every text must come out pseudo: a run of plain ASCII letters left
// over is a string that never went through the tables. Nothing generated is committed.
import { strict as assert } from 'node:assert';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as l10n from '@vscode/l10n';
import { addressAdvice, errorFix, fixFor, NotConnectedError, type Problem } from '../../src/common/core/errorFixes';
import { renderReport } from '../../src/connection/core/report';
import type { CheckDeps, ConnectionReport } from '../../src/connection/core/checkRun';
import { runConnectionCheck } from '../../src/connection/core/connectionCheck';
import { KsmClient } from '../../src/api/client';
import { AuthenticationError } from '../../src/api/errors';
import { FileManifestStore, ManifestRefusedError } from '../../src/sync/core/manifest';
import { acquireSyncLock, lockPathFor, SyncBusyError } from '../../src/sync/core/lock';
import { ReplacementTracker, type SettledReplacement } from '../../src/upload/core/pendingReplacements';
import { allFiles, memoryReplacementStorage, uploadAsTheFlowDoes, useVolumesFixture, writeVersions } from '../support/volumeFixtures';
import { freshVolume } from '../volumes/volumesEmulator';
import { createDispatcher } from '../../src/api/network';
import { probeAddress } from '../../src/api/probe';
import { redactorFor } from '../../src/api/redact';
import { useEmulator } from '../api/harness';
import { fileSortOrders, fileState } from '../../src/volumes/core/fileDisplay';
import { describeSyncState, syncStatusText, type SyncState } from '../../src/sync/vscode/syncStatusText';
import { expandSelection } from '../../src/common/core/folderExpansion';
import { localizedManifest, placeholders, readNls } from '../support/manifest';
import { findModel } from '../../src/nativeChat/core/modelCatalog';
import { AnswerFailedError, provideModelResponse } from '../../src/nativeChat/core/modelResponse';
import { ThreadBook } from '../../src/nativeChat/core/threadBook';
import { formatOrList, parametersProblemText } from '../../src/common/core/parameterText';

const CLI = join('node_modules', '@vscode', 'l10n-dev', 'dist', 'cli.js');
const work = mkdtempSync(join(tmpdir(), 'ksm-l10n-'));
after(() => rmSync(work, { recursive: true, force: true }));

/** Plain-ASCII words left in `text` once what is not ours to translate is taken out. */
function unlocalisedWords(text: string, userContent: readonly string[] = []): string[] {
  let rest = text;
  for (const content of userContent) rest = rest.split(content).join(' ');
  rest = rest
    .replace(/\$\([\w~-]+\)/g, ' ') // codicons
    .replace(/\]\([^)]*\)/g, ']') // link targets: command: URIs, URLs
    .replace(/`[^`]*`/g, ' ') // code: setting ids, commands, file names
    .replace(/'[^'\s]*'/g, ' ') // quoted ids ('ksm.baseUrl', 'chat')
    .replace(/https?:\/\/\S+/g, ' ')
    .replace(/#?ksm(\.[\w]+)+#?/g, ' ') // setting ids
    .replace(/\{[^}]*\}/g, ' ');
  return rest.match(/[A-Za-z]{2,}/g) ?? [];
}

/** What the service itself says to a call with `apiKey` (its error.message): its words, passed through untranslated. */
async function serviceSaid(baseUrl: string, apiKey: string): Promise<string> {
  const answer = await fetch(`${baseUrl}/ksm/rag/v5/files`, { headers: { authorization: `Bearer ${apiKey}` } });
  return ((await answer.json()) as { error: { message: string } }).error.message;
}

describe('localisation: package.nls.json', () => {
  const manifest = JSON.parse(readFileSync('package.json', 'utf8'));
  const nls = readNls();

  it('names every text of package.json by a key package.nls.json has, and has no unused key', () => {
    const used = placeholders(manifest).map((p) => p.key);
    for (const key of used) assert.equal(typeof nls[key], 'string', `%${key}% is missing from package.nls.json`);
    assert.deepEqual(
      Object.keys(nls).filter((key) => !used.includes(key)),
      [],
      'keys no placeholder uses',
    );
  });

  it('leaves no user-visible text of package.json in English: titles, names, descriptions, welcome and walkthrough texts are %key%', () => {
    const visible =
      /(^|\.)(displayName|description|markdownDescription|title|shortTitle|category|name|contextualTitle|contents|label|fullName|userDescription|enumDescriptions\[\d+\]|markdownEnumDescriptions\[\d+\])$/;
    const bare: string[] = [];
    const walk = (value: unknown, where: string): void => {
      if (typeof value === 'string') {
        // The model reads modelDescription and the tools' input schemas: they stay English on purpose.
        if (visible.test(where) && !/^%[^%]+%$/.test(value) && !/modelDescription|inputSchema|^name$|languageModelTools\[\d+\]\.name|chatParticipants\[\d+\]\.(name|commands\[\d+\]\.name)/.test(where))
          bare.push(`${where}: ${value}`);
      } else if (Array.isArray(value)) value.forEach((item, i) => walk(item, `${where}[${i}]`));
      else if (value && typeof value === 'object') for (const [key, item] of Object.entries(value)) walk(item, where ? `${where}.${key}` : key);
    };
    walk({ displayName: manifest.displayName, description: manifest.description, contributes: manifest.contributes, capabilities: manifest.capabilities }, '');
    assert.deepEqual(bare, []);
  });
});

describe('localisation: the l10n bundle', () => {
  it('l10n/bundle.l10n.json is what `npm run l10n` exports from src/ today (rerun it after adding a string)', function () {
    this.timeout(120_000);
    const out = join(work, 'export');
    execFileSync(process.execPath, [CLI, 'export', '--outDir', out, './src'], { stdio: 'pipe' });
    const fresh = JSON.parse(readFileSync(join(out, 'bundle.l10n.json'), 'utf8'));
    const committed = JSON.parse(readFileSync(join('l10n', 'bundle.l10n.json'), 'utf8'));
    const missing = Object.keys(fresh).filter((key) => !(key in committed));
    const stale = Object.keys(committed).filter((key) => !(key in fresh));
    assert.deepEqual({ missing, stale }, { missing: [], stale: [] }, 'run `npm run l10n` and commit l10n/bundle.l10n.json');
    assert.deepEqual(committed, fresh);
  });

  it('package.json points VS Code at the bundle folder, and the VSIX ships it and package.nls.json (.vscodeignore)', () => {
    assert.equal(JSON.parse(readFileSync('package.json', 'utf8')).l10n, './l10n');
    const shipped = readFileSync('.vscodeignore', 'utf8').split('\n');
    assert.ok(shipped.includes('!package.nls.json'), '.vscodeignore keeps package.nls.json');
    assert.ok(shipped.includes('!l10n/*.json'), '.vscodeignore keeps l10n/');
  });
});

describe('localisation: nothing unlocalised under a generated pseudo-locale (qps-ploc)', () => {
  let pseudoBundle: Record<string, string>;
  let pseudoNls: Record<string, string>;

  before(function () {
    this.timeout(120_000);
    const src = join(work, 'pseudo');
    execFileSync('mkdir', ['-p', src]);
    writeFileSync(join(src, 'bundle.l10n.json'), readFileSync(join('l10n', 'bundle.l10n.json')));
    writeFileSync(join(src, 'package.nls.json'), readFileSync('package.nls.json'));
    execFileSync(process.execPath, [CLI, 'generate-pseudo', '-o', src, join(src, 'bundle.l10n.json'), join(src, 'package.nls.json')], { stdio: 'pipe' });
    pseudoBundle = JSON.parse(readFileSync(join(src, 'bundle.l10n.qps-ploc.json'), 'utf8'));
    pseudoNls = JSON.parse(readFileSync(join(src, 'package.nls.qps-ploc.json'), 'utf8'));
    l10n.config({ contents: pseudoBundle });
  });
  after(() => l10n.config({ contents: {} }));

  it('every text of package.json (command titles, views, settings, welcome, walkthrough) comes out pseudo', () => {
    // What VS Code shows: the manifest resolved through package.nls.qps-ploc.json.
    const shown = localizedManifest(pseudoNls);
    assert.notEqual(shown.contributes.commands[0].title, localizedManifest().contributes.commands[0].title);
    const leftovers = placeholders(JSON.parse(readFileSync('package.json', 'utf8'))).flatMap(({ where, key }) => {
      const words = unlocalisedWords(pseudoNls[key] ?? key);
      return words.length ? [`${where}: ${words.join(' ')}`] : [];
    });
    assert.deepEqual(leftovers, []);
  });

  it('the cores speak the bundle the extension configures: fixes, buttons, file states, sync status', () => {
    const texts: string[] = [];
    for (const problem of [
      'address',
      'refused',
      'unreachable',
      'proxy',
      'certificate',
      'timeout',
      'not-the-api',
      'no-key',
      'key',
      'user-id',
      'volume',
      'model',
      'agent',
      'rate-limited',
      'server',
      'stream',
      'not-connected',
      'not-configured',
      'other',
    ] as Problem[]) {
      texts.push(fixFor(problem, { baseUrl: 'https://ksm.example.com', proxy: 'http://proxy:3128', caBundle: '/ca.pem', model: 'gpt-x', agentId: 'rag-agent', volume: 'team', userId: 'u1' }));
    }
    const fix = errorFix(new NotConnectedError())!;
    texts.push(fix.problem, fix.action.title, ...(fix.alternatives ?? []).map((a) => a.title), new NotConnectedError().message);
    for (const o of fileSortOrders()) texts.push(o.label, o.detail);
    for (const mode of [0, 1, 2, undefined] as const) {
      const shown = fileState({ uuid: 'u', filename: 'a.txt', filesize: 1, date: '20260101000000', status: 'na', statusDetail: '' } as never, mode);
      texts.push(shown.text, shown.explanation ?? '');
    }
    const states: SyncState[] = [{ kind: 'idle' }, { kind: 'inSync' }, { kind: 'pending', count: 2 }, { kind: 'review', count: 1 }, { kind: 'syncing' }, { kind: 'error', message: 'x' }];
    for (const state of states)
      texts.push(
        syncStatusText([state], () => '09:00').text,
        describeSyncState(state, () => '09:00'),
      );
    const leftovers = texts.flatMap((text) =>
      unlocalisedWords(text, ['https://ksm.example.com', 'http://proxy:3128', '/ca.pem', 'gpt-x', 'rag-agent', 'a.txt', 'npm run emulator']).length ? [text] : [],
    );
    assert.deepEqual(leftovers, []);
  });

  describe('a real Check Connection against the emulator', () => {
    const h = useEmulator();
    const run = async (apiKey: string, volumes: string[]) => {
      const dispatcher = createDispatcher({ env: {} });
      try {
        const baseUrl = h.emulator.url;
        const deps: CheckDeps = {
          target: { baseUrl, userId: h.emulator.userId, volumes, model: 'emu-chat', agentId: 'rag-agent', agentModel: 'emu-chat', network: { strictSSL: true }, askAgent: false },
          hasApiKey: true,
          client: (shapes) => new KsmClient({ baseUrl, apiKey: async () => apiKey, dispatcher, shapes, timeoutMs: 5000, retry: { retries: 0 } }),
          probe: (url) => probeAddress(url, { dispatcher, timeoutMs: 5000, redact: redactorFor([apiKey]) }),
        };
        const report = await runConnectionCheck(deps);
        return { report, markdown: renderReport(report, [apiKey]) };
      } finally {
        await dispatcher.destroy();
      }
    };
    /** What the user, the service and the model wrote: not ours to translate. */
    const content = () => [h.emulator.url, h.emulator.userId, 'emu-chat', 'rag-agent', 'team-docs'];
    /** Report lines that are the service's data: the answer shapes (field names) and timestamps. */
    const ours = (markdown: string) =>
      markdown
        .split('\n')
        .filter((line) => !/^- .*: `/.test(line)) // a response shape: source and field names as they arrived
        .map((line) =>
          line
            .replace(/\d{4}-\d\d-\d\dT[\d:.]+Z/g, ' ')
            .replace(/"[^"]*"/g, ' ')
            .replace(/\(\w+\/[\w.+-]+\)/g, ' ')
            .replace(/\bHTTP\b|\bGET\b|\bOK\b|\bTLS\b|\bCAs?\b|\bms\b|\[DONE\]|finish_reason|output_parser|Node/g, ' '),
        )
        .join('\n');

    it('a healthy service: every step title, detail, the verdict and the frame come out pseudo', async () => {
      const { report, markdown } = await run(h.emulator.apiKey, ['team-docs']);
      assert.ok(
        report.steps.every((s) => s.status !== 'failed'),
        markdown,
      );
      assert.deepEqual(unlocalisedWords(ours(markdown), content()), [], ours(markdown));
    });

    it('a refused key: the failing step, its fix and the skipped steps come out pseudo (the service error text aside)', async () => {
      const { report, markdown } = await run('wrong-key', []);
      const failed = report.steps.find((s) => s.status === 'failed')!;
      assert.equal(failed.id, 'key');
      // The failing step's detail is the service client's error, in the pseudo-locale too; only
      // what the service itself said (after the colon, its error.message) is its own words.
      const said = await serviceSaid(h.emulator.url, 'wrong-key');
      assert.ok(failed.detail.includes(said), failed.detail);
      assert.deepEqual(unlocalisedWords(ours(markdown), [...content(), said]), [], ours(markdown));
    });
  });

  describe("VS Code's Chat refusing a caller's model option for a KSM model (the panel's words, in the UI language)", () => {
    const h = useEmulator();
    const chatModel = findModel({ show: true, models: ['emu-chat'], agentId: 'rag-agent', agentModel: 'emu-chat' }, 'emu-chat')!;

    /** The refusal VS Code's Chat shows for `modelOptions`, through the provider's response path against the emulator. */
    async function refusal(modelOptions: Record<string, unknown>): Promise<string> {
      const before = h.emulator.stats.requests;
      const error = await provideModelResponse({
        service: h.client(),
        model: chatModel,
        messages: [{ role: 'user', parts: [{ kind: 'text', text: 'hi' }] }],
        modelOptions,
        language: 'qps-ploc',
        volumes: [],
        threads: new ThreadBook(),
        signal: new AbortController().signal,
        report: () => assert.fail('an answer came for a refused option'),
      }).then(
        () => assert.fail(`accepted ${JSON.stringify(modelOptions)}`),
        (caught: unknown) => caught,
      );
      assert.ok(error instanceof AnswerFailedError, String(error));
      assert.equal(h.emulator.stats.requests, before, 'refused before any request');
      return error.message;
    }

    it('an invalid temperature: the frame and the sentence inside come out pseudo, its bounds kept', async () => {
      const message = await refusal({ temperature: 5 });
      assert.deepEqual(unlocalisedWords(message), [], message);
      assert.ok(message.includes(l10n.t('Temperature')), `names the parameter as the panel does: ${message}`);
      assert.match(message, /\b0\b.*\b2\b/, 'names the bounds');
    });

    it('a refused list (stop sequences: too many, or an empty one) comes out pseudo', async () => {
      for (const stop of [
        ['a', 'b', 'c', 'd', 'e'],
        ['ok', ''],
      ]) {
        const message = await refusal({ stop });
        assert.deepEqual(unlocalisedWords(message), [], message);
        assert.ok(message.includes(l10n.t('Stop sequences')), message);
      }
    });

    it("the host's wording of a refused choice: the choices' words pseudo, the list joined by Intl in the language passed (the same words as the panel)", () => {
      const effort = (choice: string) => l10n.t({ message: choice, comment: ['reasoning effort'] });
      const choices = [effort('Low'), effort('Medium'), effort('High')];
      const problem = parametersProblemText({ reasoningEffort: 'extreme' }, 'qps-ploc');
      assert.ok(problem);
      assert.equal(problem.name, 'reasoningEffort');
      // Intl has no data for the pseudo-locale and joins the list its default way ("a, b, or c"):
      // that is Intl's text, not ours, so it is taken out like user content.
      const joined = formatOrList(choices, 'qps-ploc');
      assert.ok(problem.message.includes(joined), problem.message);
      assert.deepEqual(unlocalisedWords(problem.message, [joined]), [], problem.message);
      assert.deepEqual(unlocalisedWords(choices.join(' ')), [], 'the choices themselves are ours, pseudo');
      // In a language Intl knows, the list is that language's (the argument is used, not the process locale).
      assert.match(parametersProblemText({ reasoningEffort: 'extreme' }, 'de')!.message, / oder /);
      assert.match(parametersProblemText({ reasoningEffort: 'extreme' }, 'fr')!.message, / ou /);
      const both = parametersProblemText({ reasoningEffort: 'low', reasoningBudget: 10 }, 'qps-ploc');
      assert.deepEqual(unlocalisedWords(both?.message ?? 'none'), [], both?.message);
    });
  });

  describe('errors of the service client and the sync engine, as the editor shows them', () => {
    const h = useEmulator();

    it("a refused call against the emulator: the error names the call and the fix in the pseudo-locale (the service's own words aside)", async () => {
      const dispatcher = createDispatcher({ env: {} });
      try {
        const client = new KsmClient({ baseUrl: h.emulator.url, apiKey: async () => 'wrong-key', dispatcher, timeoutMs: 5000, retry: { retries: 0 } });
        const error = await client.listFiles({ volume: 'team-docs' }).then(
          () => assert.fail('a wrong key was accepted'),
          (caught: unknown) => caught,
        );
        assert.ok(error instanceof AuthenticationError, String(error));
        const said = await serviceSaid(h.emulator.url, 'wrong-key');
        assert.ok(error.message.includes(said), error.message);
        assert.notEqual(error.message, l10n.t("{0} failed: the service did not accept the API key{1}. Set your API key with 'KSM: Set API Key'.", 'x', said));
        assert.deepEqual(unlocalisedWords(error.message, [said, 'team-docs']), [], error.message);
      } finally {
        await dispatcher.destroy();
      }
    });

    it('a refused sync manifest and a busy sync lock come out pseudo (paths aside)', async () => {
      const folder = mkdtempSync(join(work, 'sync-'));
      const manifest = join(folder, 'manifest.json');
      writeFileSync(join(folder, 'elsewhere.json'), '{}');
      symlinkSync(join(folder, 'elsewhere.json'), manifest);
      const refused = await new FileManifestStore(manifest).load('team-docs').then(
        () => assert.fail('a symbolic link was read'),
        (caught: unknown) => caught as Error,
      );
      assert.ok(refused instanceof ManifestRefusedError, String(refused));
      assert.deepEqual(unlocalisedWords(refused.message, [manifest]), [], refused.message);

      const lockOf = join(folder, 'other.json');
      const release = await acquireSyncLock(lockOf, { what: 'docs → team-docs' });
      try {
        const busy = await acquireSyncLock(lockOf, { what: 'docs → team-docs', waitMs: 100 }).then(
          () => assert.fail('a second run took a held lock'),
          (caught: unknown) => caught as Error,
        );
        assert.ok(busy instanceof SyncBusyError, String(busy));
        assert.deepEqual(unlocalisedWords(busy.message, ['docs → team-docs', lockPathFor(lockOf)]), [], busy.message);
      } finally {
        await release();
      }
    });

    it("a folder's skip reasons (link, credential, .gitignore, private folder, binary) come out pseudo, as the upload details and the sync preview show them", async () => {
      const folder = mkdtempSync(join(work, 'skips-'));
      mkdirSync(join(folder, '.git'));
      writeFileSync(join(folder, '.git', 'config'), '[core]');
      writeFileSync(join(folder, '.gitignore'), 'build.log\n');
      writeFileSync(join(folder, 'build.log'), 'log');
      writeFileSync(join(folder, '.env'), 'TOKEN=1');
      writeFileSync(join(folder, 'image.bin'), Buffer.from([0, 1, 2, 3]));
      writeFileSync(join(folder, 'notes.md'), '# notes');
      symlinkSync(join(folder, 'notes.md'), join(folder, 'link.md'));
      const { files, skipped } = await expandSelection([folder], { excludeGlobs: [], maxFileSizeBytes: 1024 * 1024, workspaceRoots: [folder], useGitignore: true });
      assert.deepEqual(
        files.map((f) => f.path),
        [join(folder, 'notes.md')],
      );
      assert.ok(skipped.length >= 5, JSON.stringify(skipped));
      for (const { path, reason } of skipped) assert.deepEqual(unlocalisedWords(reason, [path, '.gitignore', '.git', '.env']), [], reason);
    });

    it("Check Connection's address step: an unusable address gets its own fix, composed in the pseudo-locale", async () => {
      const report = await runConnectionCheck({
        target: { baseUrl: 'not a url', userId: 'u1', volumes: [], model: 'gpt-x', agentId: 'rag-agent', agentModel: 'gpt-x', network: { strictSSL: true }, askAgent: false },
        hasApiKey: true,
        client: () => assert.fail('no call is made for an unusable address'),
        probe: () => assert.fail('no probe is sent for an unusable address'),
      });
      const address = report.steps.find((s) => s.id === 'address')!;
      assert.equal(address.status, 'failed');
      assert.equal(address.fix, addressAdvice({ baseUrl: 'not a url' }, 'invalid'));
      assert.notEqual(address.fix, fixFor('address', { baseUrl: 'not a url' }));
      for (const text of [address.fix!, address.detail]) assert.deepEqual(unlocalisedWords(text, ['not a url']), [], text);
    });
  });

  describe("a replacement's outcome, as its notification says it", () => {
    const fixture = useVolumesFixture(5);

    it('a new copy that ends na: "the older copy was kept" comes out pseudo (file and volume names aside)', async () => {
      const fx = fixture();
      const volume = freshVolume('l10n-replace');
      const [old] = (await uploadAsTheFlowDoes(fx, volume, await writeVersions(fx, volume, ['report.md'], 'old'), { existing: [] })).results;
      assert.equal(old?.outcome, 'uploaded');
      await fx.emulator.waitForIdle();
      // do_chunking 0: stored as is, never searchable (the emulator ends it `na`).
      const replace = async () => ({ choice: 'replace' as const, applyToAll: false });
      const summary = await uploadAsTheFlowDoes(fx, volume, await writeVersions(fx, volume, ['report.md'], 'new'), { onDuplicate: replace, doChunking: 0 });
      const settled: SettledReplacement[] = [];
      const tracker = new ReplacementTracker({ service: () => fx.client, storage: memoryReplacementStorage(), onSettled: (s) => settled.push(s), pollMs: 10 });
      await tracker.add(summary.replacements);
      await tracker.idle();
      assert.deepEqual(
        settled.map((s) => s.outcome),
        ['kept-old'],
      );
      const { message } = settled[0]!;
      assert.ok(message.includes('report.md') && message.includes(volume), message);
      // Why the service did not process it is the service's own words (statusDetail).
      const detail = (await allFiles(fx, volume)).find((f) => f.uuid === summary.replacements[0]!.uuid)?.statusDetail ?? '';
      assert.ok(detail && message.includes(detail), message);
      assert.deepEqual(unlocalisedWords(message, ['report.md', volume, detail]), [], message);
      tracker.dispose();
    });
  });

  it("Check Connection's report frame, verdict and fix come out pseudo (the steps' own details are listed as not yet done)", () => {
    const report: ConnectionReport = {
      startedAt: new Date('2026-11-25T20:00:00Z'),
      target: { baseUrl: 'https://ksm.example.com', network: { strictSSL: true }, userId: 'u1', volumes: ['team'], model: 'gpt-x', agentId: 'rag-agent' },
      steps: [{ id: 'key', title: '<step>', status: 'failed', detail: '<detail>', problem: 'key', fix: fixFor('key', { baseUrl: 'https://ksm.example.com' }) }],
      shapes: [],
    } as unknown as ConnectionReport;
    const markdown = renderReport(report, []);
    const leftovers = unlocalisedWords(markdown, ['https://ksm.example.com', 'gpt-x', 'rag-agent', 'team', 'u1', '<step>', '<detail>', '2026-11-25T20:00:00.000Z']);
    assert.deepEqual(leftovers, [], markdown);
  });
});
