// What a tool that writes must never send: the one set of private-file rules, for VS Code's
// `ksm_upload_files` tool (src/nativeChat) and `ksm mcp --allow-upload` alike. A model that
// was talked into uploading `.git/config`, a gitignored `.env` or `~/.ssh/id_ed25519`
// through a symlink gets a refusal with the reason, never a confirmation dialog. The rules
// hold whatever the settings say (a workspace may empty `ksm.upload.exclude`); the settings
// only add to them. No `vscode` import.
import * as l10n from '@vscode/l10n';
import { constants } from 'node:fs';
import { open, realpath, stat } from 'node:fs/promises';
import { basename, isAbsolute, relative, resolve, sep } from 'node:path';
import picomatch from 'picomatch';
import { globCostProblem } from './globCost';
import { shownInput } from './untrustedText';
import { gitignoreLineFor, ignoringFileFrom, type IgnoringLine } from './gitignore';

export interface PrivateFileRules {
  /** The workspace folders (as configured; their real paths are taken here). */
  workspaceRoots: readonly string[];
  /** `files.exclude` globs that are on, relative to a workspace folder. */
  filesExclude: readonly string[];
  /** `ksm.upload.exclude` globs, relative to a workspace folder. */
  uploadExclude: readonly string[];
}

/** A file that may be sent: its real path and where it is shown. */
export interface AllowedFile {
  /** Real path (symlinks resolved): what is read and sent. */
  path: string;
  /** Relative to its workspace folder, `/`-separated; prefixed by the folder's name when several are open. */
  displayPath: string;
  size: number;
  /**
   * The checked file itself (device and inode): the upload must read this file and no other
   * (UploadSource.identity), so a path replaced by a symlink leading out, or by a FIFO, after
   * the check is not read.
   */
  identity: { dev: number; ino: number };
}

export type PrivateFileCheck = { ok: true; file: AllowedFile } | { ok: false; reason: string };

/** Base names that hold credentials: the name alone refuses the file. */
const CREDENTIAL_NAMES: ReadonlyArray<{ pattern: RegExp; what: () => string }> = [
  { pattern: /^\.env/i, what: () => l10n.t("'.env*' files hold secrets") },
  { pattern: /\.(pem|key|p12|pfx|jks|keystore|ppk|asc|gpg)$/i, what: () => l10n.t('key and certificate stores (*.pem, *.key, *.p12, *.pfx, *.jks, *.keystore, *.ppk) hold private keys') },
  { pattern: /^id_(rsa|ed25519|ecdsa|dsa)/i, what: () => l10n.t("SSH keys ('id_rsa*', 'id_ed25519*', 'id_ecdsa*', 'id_dsa*')") },
  {
    pattern: /^(\.npmrc|\.yarnrc\.yml|\.pypirc|\.netrc|_netrc|\.pgpass|\.git-credentials|\.htpasswd|\.dockercfg|credentials(\.json)?)$/i,
    what: () => l10n.t('a credentials file (registry, netrc, database or cloud tokens)'),
  },
  // A worktree's or submodule's `.git` is a file: `gitdir: <a local path>` into the repository's own data.
  { pattern: /^\.git$/i, what: () => l10n.t("a '.git' file (a worktree's or submodule's pointer into the repository's own data)") },
];
/** Any of them, as one expression: the common case (no credential) costs one test (a folder sync asks for every file). */
export const ANY_CREDENTIAL_NAME = new RegExp(CREDENTIAL_NAMES.map((c) => `(?:${c.pattern.source})`).join('|'), 'i');

/** Folders whose content is private whatever the file is called. */
const PRIVATE_FOLDERS = new Map<string, () => string>([
  ['.git', () => l10n.t("inside '.git/': the repository's own data (config, credentials, hooks)")],
  ['.ssh', () => l10n.t("inside '.ssh/': SSH keys and known hosts")],
  ['.gnupg', () => l10n.t("inside '.gnupg/': GnuPG keys")],
  ['.aws', () => l10n.t("inside '.aws/': cloud credentials")],
]);

/**
 * A private key's armour anywhere at a line start (RSA, EC, OPENSSH, ENCRYPTED, PGP …), or a
 * PuTTY key; or the armour inside a line followed by key material, as a JSON string holds it
 * (a cloud service account's `"private_key": "-----BEGIN PRIVATE KEY-----\nMIIE…"`). Prose
 * that names the header ("starts with -----BEGIN RSA PRIVATE KEY----- and …") is no key.
 * The indentation before the armour never spans a line break: `^\s*` under the `m` flag
 * re-read every following blank line from each line start, so a text of blank lines (a chat
 * question, a file's 64 KiB head) took time growing with its square (seconds at 64 KiB,
 * minutes at 200 KiB, the extension host blocked meanwhile).
 */
const PRIVATE_KEY_HEADER =
  /^[^\S\r\n\u2028\u2029]*(-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----|PuTTY-User-Key-File-)|-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----(?:\\[rn]|\s)+[A-Za-z0-9+/=]{16}/m;
/** How much of a file is read to look for a key header. */
export const PRIVATE_KEY_SNIFF_BYTES = 64 * 1024;

/** Why a base name is a credential, or undefined. */
export function credentialNameReason(name: string): string | undefined {
  if (!ANY_CREDENTIAL_NAME.test(name)) return undefined; // the common case, one regular expression (a folder sync asks for every file)
  const hit = CREDENTIAL_NAMES.find((c) => c.pattern.test(name));
  return hit ? l10n.t('looks like a credential: {0}', hit.what()) : undefined;
}

/** Why a folder of this name is private (`.git`, `.ssh`, …), or undefined. */
export function privateFolderNameReason(name: string): string | undefined {
  return PRIVATE_FOLDERS.get(name.toLowerCase())?.();
}

/** Why a path (relative, `/`-separated) lies in a private folder, or undefined. */
export function privateFolderReason(rel: string): string | undefined {
  for (const segment of rel.split('/').slice(0, -1)) {
    const reason = PRIVATE_FOLDERS.get(segment.toLowerCase());
    if (reason) return reason();
  }
  return undefined;
}

/** Why a file's first bytes are a private key, or undefined. */
export function privateKeyContentReason(head: Uint8Array): string | undefined {
  const text = Buffer.from(head.buffer, head.byteOffset, head.byteLength).toString('latin1');
  return PRIVATE_KEY_HEADER.test(text) ? l10n.t('contains a private key (a "-----BEGIN … PRIVATE KEY-----" header)') : undefined;
}

/**
 * Checks one path a tool was asked to send (absolute, or relative to a workspace folder):
 * it must exist, be a regular file whose real location lies inside a workspace folder, and
 * be none of: in `.git/` (or `.ssh/`, `.gnupg/`, `.aws/`), a credential by name, ignored by
 * `.gitignore`, excluded by `files.exclude` or `ksm.upload.exclude`, a private key by
 * content. Both the path as given and the real path are checked, so a symlink named
 * `notes.md` pointing at `.env` is refused as well. Fails closed: any error refuses.
 */
export async function checkPrivateFile(given: string, rules: PrivateFileRules): Promise<PrivateFileCheck> {
  try {
    return await check(given, rules);
  } catch (error) {
    return { ok: false, reason: l10n.t('could not be checked ({0}), so it is not sent', (error as NodeJS.ErrnoException).code ?? 'error') };
  }
}

async function check(given: string, rules: PrivateFileRules): Promise<PrivateFileCheck> {
  if (rules.workspaceRoots.length === 0) return { ok: false, reason: l10n.t('no workspace folder is open: only files inside one can be sent') };
  const roots = await Promise.all(rules.workspaceRoots.map(async (r) => ({ lexical: resolve(r), real: await realpath(r).catch(() => resolve(r)) })));
  const candidates = isAbsolute(given) ? [resolve(given)] : roots.map((r) => resolve(r.lexical, given));
  let lexical: string | undefined;
  let real: string | undefined;
  for (const candidate of candidates) {
    const resolved = await realpath(candidate).catch(() => undefined);
    if (resolved) {
      lexical = candidate;
      real = resolved;
      break;
    }
  }
  if (!lexical || !real) return { ok: false, reason: l10n.t('does not exist in the workspace') };
  const lexicalRoot = roots.find((r) => isInside(lexical, r.lexical) || isInside(lexical, r.real));
  const realRoot = roots.find((r) => isInside(real, r.real));
  if (!realRoot) {
    return { ok: false, reason: lexicalRoot ? l10n.t('is a symbolic link leading outside the workspace folders') : l10n.t('is outside the workspace folders') };
  }
  const info = await stat(real);
  if (!info.isFile()) return { ok: false, reason: l10n.t('is not a file') };

  const realRel = toPosix(relative(realRoot.real, real));
  const lexicalRel = lexicalRoot ? toPosix(relative(isInside(lexical, lexicalRoot.lexical) ? lexicalRoot.lexical : lexicalRoot.real, lexical)) : realRel;
  for (const rel of new Set([lexicalRel, realRel])) {
    const reason = privateFolderReason(rel) ?? credentialNameReason(basename(rel));
    if (reason) return { ok: false, reason };
  }
  for (const [setting, globs] of [
    ['files.exclude', rules.filesExclude],
    ['ksm.upload.exclude', rules.uploadExclude],
  ] as const) {
    // A glob too costly to match (globCost.ts) is not run: the file is refused, as it may be one the glob keeps out.
    const costly = globs.find((g) => globCostProblem(g) !== undefined);
    if (costly) return { ok: false, reason: l10n.t("cannot be checked against {0}: the pattern '{1}' is too complex to match safely", setting, shownInput(costly, 120)) };
    const glob = globs.find((g) => picomatch(g, { dot: true })(lexicalRel) || picomatch(g, { dot: true })(realRel));
    if (glob) return { ok: false, reason: l10n.t("is excluded by {0} ('{1}')", setting, shownInput(glob, 120)) };
  }
  const ignored = (await ignoredBy(real, realRoot.real)) ?? (lexicalRoot ? await ignoredBy(lexical, lexicalRoot.lexical) : undefined);
  if (ignored) return { ok: false, reason: ignored };
  const head = await readHead(real, info);
  if (!head) return { ok: false, reason: l10n.t('was replaced while it was being checked, so it is not sent') };
  const content = privateKeyContentReason(head.bytes);
  if (content) return { ok: false, reason: content };

  const prefix = roots.length > 1 ? `${basename(realRoot.lexical)}/` : '';
  return { ok: true, file: { path: real, displayPath: prefix + realRel, size: info.size, identity: head.identity } };
}

/** O_NONBLOCK: a path swapped for a FIFO since its stat must not hang open(2) (a thread of the pool, for good). */
const SNIFF_FLAGS = constants.O_RDONLY | (constants.O_NONBLOCK ?? 0);

/** The file's first bytes and identity; undefined when the path is no longer the regular file `checked` stat'ed. */
async function readHead(path: string, checked: { dev: number; ino: number }): Promise<{ bytes: Buffer; identity: { dev: number; ino: number } } | undefined> {
  const handle = await open(path, SNIFF_FLAGS);
  try {
    const info = await handle.stat();
    if (!info.isFile() || info.dev !== checked.dev || info.ino !== checked.ino) return undefined;
    const buffer = Buffer.alloc(PRIVATE_KEY_SNIFF_BYTES);
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
    return { bytes: buffer.subarray(0, bytesRead), identity: { dev: info.dev, ino: info.ino } };
  } finally {
    await handle.close();
  }
}

/** Why the `.gitignore` files of the workspace folder `root` leave `path` out (naming the file and line, as `git check-ignore -v`), or undefined. */
async function ignoredBy(path: string, root: string): Promise<string | undefined> {
  const hit = await gitignoreLineFor(path, root);
  return hit && gitignoredReason(hit, root);
}

function gitignoredReason(hit: IgnoringLine, root: string): string {
  const file = shownInput(ignoringFileFrom(root, hit), 120);
  if (hit.line === undefined) return l10n.t('cannot be checked against {0}: its lines are too costly to match against this path, so it is left out', file);
  if (hit.tooComplex) return l10n.t('cannot be checked against line {0} of {1}: that line is too complex to apply, so it is left out', hit.line, file);
  return l10n.t('is ignored by line {0} of {1} (ignored files are often local secrets or build output)', hit.line, file);
}

function isInside(path: string, root: string): boolean {
  const rel = relative(root, path);
  return rel !== '' && rel !== '..' && !rel.startsWith(`..${sep}`) && !isAbsolute(rel);
}

function toPosix(path: string): string {
  return sep === '/' ? path : path.split(sep).join('/');
}

// ---------------------------------------------------------------------------------------
// Chat context: the one rule for a local file's text sent with a question (`@ksm`'s #file,
// #selection and VS Code's implicit current-file reference; the panel's Ask About File and
// Ask About Selection chips). Like Copilot's content exclusion, it holds whatever the
// settings say and whatever the workspace's trust: nothing a workspace controls (its
// settings, its `.gitignore`) can switch it off, only leave more out.
//
// - A private key in the text itself is never sent, whoever attached it and whatever the
//   file is called (a selection of a key pasted into `notes.md`, an unsaved editor).
// - A private file by name or folder (`.env`, `id_rsa`, `*.pem`, `.git/…`, `.ssh/…`; the
//   real path too, so a symlink named `notes.md` to `~/.ssh/id_rsa` counts) and a file
//   matching `ksm.upload.exclude` (the user's own "never send" list) are never sent either:
//   no opt-in, as Copilot's content exclusion has none. Paste the lines you mean into the
//   question instead: typed text is the user's own, and a key in it is still left out by
//   the model picker's path (privateKeysRemoved).
// - A file VS Code attached by itself (an implicit reference) is also left out when it is
//   ignored by `.gitignore` or `files.exclude`; attaching that exact file explicitly
//   (#file) is the user's consent, and the note says so.
// Every file left out gets one visible, escaped line saying which and why (chatContextNote).

/** Where a chat's context text comes from. */
export interface ChatContextSource {
  /** The local file (absent for an unsaved, untitled editor: only its text is checked). */
  path?: string;
  /** The text that would be sent: the whole file, a selection, an editor's unsaved text. */
  text: string;
  /** VS Code attached it by itself (its implicit current-file, selection or viewport reference), not the user. */
  implicit: boolean;
}

export type ChatContextDecision =
  | { send: true }
  /** `attachToSend`: the file is left out only because VS Code attached it by itself; attaching it explicitly sends it. */
  | { send: false; reason: string; attachToSend: boolean; display?: string };

/** Why a text holds a private key, or undefined (the whole text: a key past the first 64 KB counts too). */
export function privateKeyTextReason(text: string): string | undefined {
  return PRIVATE_KEY_HEADER.test(text) ? l10n.t('contains a private key (a "-----BEGIN … PRIVATE KEY-----" header)') : undefined;
}

/** Whether this text may go to the service as chat context. Fails closed: a path that cannot be checked is left out. */
export async function chatContextDecision(source: ChatContextSource, rules: PrivateFileRules): Promise<ChatContextDecision> {
  const key = privateKeyTextReason(source.text);
  if (key) return { send: false, reason: key, attachToSend: false };
  if (source.path === undefined) return { send: true };
  return chatContextPathDecision(source.path, source.implicit, rules);
}

/**
 * The path half of chatContextDecision, decided before anything is read: a file its path
 * already rules out (`.env`, `id_rsa`, `.ssh/…`, `ksm.upload.exclude`, and for an implicit
 * reference `files.exclude` and `.gitignore`) is not even opened. What may go is then read
 * and its text judged by privateKeyTextReason. Fails closed like chatContextDecision.
 */
export async function chatContextPathDecision(path: string, implicit: boolean, rules: PrivateFileRules): Promise<ChatContextDecision> {
  try {
    return await pathDecision(path, implicit, rules);
  } catch (error) {
    return { send: false, reason: l10n.t('could not be checked ({0}), so it is not sent', (error as NodeJS.ErrnoException).code ?? 'error'), attachToSend: false };
  }
}

async function pathDecision(path: string, implicit: boolean, rules: PrivateFileRules): Promise<ChatContextDecision> {
  const lexical = resolve(path);
  const real = await realpath(lexical).catch(() => lexical);
  const roots = await Promise.all(rules.workspaceRoots.map(async (r) => ({ lexical: resolve(r), real: await realpath(r).catch(() => resolve(r)) })));
  // Each path as its workspace folder sees it (`/`-separated, relative), or whole when it lies outside every folder.
  const views = [lexical, real].map((p) => {
    const root = roots.find((r) => isInside(p, r.lexical) || isInside(p, r.real));
    const base = root ? (isInside(p, root.lexical) ? root.lexical : root.real) : undefined;
    return {
      path: p,
      root: base,
      rel: base
        ? toPosix(relative(base, p))
        : toPosix(p)
            .replace(/^[A-Za-z]:/, '')
            .replace(/^\/+/, ''),
    };
  });
  const display = views[0]!.root ? views[0]!.rel : basename(lexical);
  const leftOut = (reason: string, attachToSend = false): ChatContextDecision => ({ send: false, reason, attachToSend, display });
  for (const view of views) {
    const reason = privateFolderReason(view.rel) ?? credentialNameReason(basename(view.rel));
    if (reason) return leftOut(reason);
  }
  const inside = views.filter((v) => v.root !== undefined);
  for (const [setting, globs, always] of [
    ['ksm.upload.exclude', rules.uploadExclude, true],
    ['files.exclude', rules.filesExclude, false],
  ] as const) {
    if (!always && !implicit) continue;
    const costly = globs.find((g) => globCostProblem(g) !== undefined);
    if (costly) return leftOut(l10n.t("cannot be checked against {0}: the pattern '{1}' is too complex to match safely", setting, shownInput(costly, 120)), !always);
    const glob = globs.find((g) => inside.some((v) => picomatch(g, { dot: true })(v.rel)));
    if (glob) return leftOut(l10n.t("is excluded by {0} ('{1}')", setting, shownInput(glob, 120)), !always);
  }
  if (implicit) {
    for (const view of inside) {
      const ignored = await ignoredBy(view.path, view.root!);
      if (ignored) return leftOut(ignored, true);
    }
  }
  return { send: true };
}

/**
 * The name-only half of the rule, for a chip a stored conversation kept from before the rule
 * (the panel's chips keep a file name, not its path): a credential name (`.env`, `id_rsa`,
 * `*.pem`, …), or a private folder in a `/`-separated name, is left out at send time.
 */
export function chatContextNameDecision(name: string): ChatContextDecision {
  const reason = privateFolderReason(name) ?? credentialNameReason(name.slice(name.lastIndexOf('/') + 1));
  return reason ? { send: false, reason, attachToSend: false } : { send: true };
}

/**
 * The one line that says a file was left out of a question, and why: plain text, its name
 * escaped (`shownInput`); a Markdown front end escapes the whole line (`markdownText`).
 */
export function chatContextNote(name: string, decision: Extract<ChatContextDecision, { send: false }>): string {
  const what = shownInput(decision.display ?? name, 200);
  return decision.attachToSend
    ? l10n.t("Left out: '{0}' {1}. VS Code attached it by itself; attach it with #file to send it.", what, decision.reason)
    : l10n.t("Left out: '{0}' {1}. Private files are never sent as chat context.", what, decision.reason);
}

/** An armoured private key from its header to its footer (or the text's end), or a PuTTY key to its MAC line (or the end). */
const PRIVATE_KEY_BLOCK = /-----BEGIN ((?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?)-----[\s\S]*?(?:-----END \1-----|$(?![\s\S]))|PuTTY-User-Key-File-[\s\S]*?(?:^Private-MAC:[^\r\n]*|$(?![\s\S]))/gm;
/** Key material right after an armour header: whitespace (or a JSON string's `\\n`), then base64. */
const KEY_MATERIAL = /^-----BEGIN [^-]*-----(?:\\[rn]|\s)+[A-Za-z0-9+/=]{16}/;

/**
 * The text with every private key in it replaced by a one-line note: for text the extension
 * did not compose and cannot trace to a file (the messages another chat participant hands
 * the KSM model in VS Code's model picker, a tool's result, the user's typed question). What
 * counts as a key is privateKeyTextReason's test; its armour is cut out, the rest is kept.
 */
export function privateKeysRemoved(text: string): { text: string; removed: number } {
  if (!privateKeyTextReason(text)) return { text, removed: 0 };
  const pattern = new RegExp(PRIVATE_KEY_BLOCK.source, PRIVATE_KEY_BLOCK.flags);
  let out = '';
  let kept = 0;
  let removed = 0;
  for (let match = pattern.exec(text); match; match = pattern.exec(text)) {
    const atLineStart = /^\s*$/.test(text.slice(text.lastIndexOf('\n', match.index - 1) + 1, match.index));
    if (!atLineStart && !KEY_MATERIAL.test(match[0])) {
      // Prose that only names the header inside a line: kept, and the search goes on right after that header (a key may follow).
      pattern.lastIndex = match.index + (/^-----BEGIN [^-]*-----/.exec(match[0])?.[0].length ?? 1);
      continue;
    }
    out += text.slice(kept, match.index) + l10n.t('[a private key was left out: private keys are never sent]');
    kept = match.index + match[0].length;
    removed++;
    if (match[0].length === 0) pattern.lastIndex++;
  }
  return { text: out + text.slice(kept), removed };
}
