// The one redaction step (src/api/redact.ts): the key is caught in every form a server may
// echo it in, whatever characters it holds and however short it is.
import { strict as assert } from 'node:assert';
import { redactorFor } from '../../src/api/redact';

const KEYS = [`Xk9Q"vQ7'WzJ,\\/pRt+&%ZyW`, 'a7Q', 'kéy/ünï+cödé', 'sp ace+plus'];

/** Every form of `key` a server might send back. */
function echoes(key: string): Record<string, string> {
  const json = JSON.stringify(key).slice(1, -1);
  return {
    'as sent': key,
    'JSON-escaped': json,
    'JSON-escaped twice': JSON.stringify(json).slice(1, -1),
    'slash-escaped JSON': json.replace(/\//g, '\\/'),
    'JSON \\u escapes': [...key].map((c) => (/[A-Za-z0-9]/.test(c) ? c : `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)).join(''),
    encodeURIComponent: encodeURIComponent(key),
    'encodeURIComponent, lower-case hex': encodeURIComponent(key).replace(/%[0-9A-F]{2}/g, (m) => m.toLowerCase()),
    'form encoding': new URLSearchParams({ k: key }).toString().slice(2),
    'URL-encoded twice': encodeURIComponent(encodeURIComponent(key)),
    'HTML entities': key.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/'/g, '&#39;'),
  };
}

describe('redaction of the API key', () => {
  for (const key of KEYS) {
    it(`catches ${JSON.stringify(key)} in every echoed form`, () => {
      const redact = redactorFor([key]);
      for (const [form, echoed] of Object.entries(echoes(key))) {
        const out = redact(`upstream said: {"auth":"${echoed}"} (${echoed}) end`);
        assert.ok(!out.includes(echoed), `${form}: ${out}`);
        assert.ok(out.includes('***'), `${form}: ${out}`);
        assert.ok(out.startsWith('upstream said: ') && out.endsWith(' end'), `${form}: the text around is kept: ${out}`);
      }
    });
  }

  it('replaces the literal key before the Bearer pattern, so no part of it is left', () => {
    const key = KEYS[0];
    const out = redactorFor([key])(`Authorization: Bearer ${key}; header echo "Bearer ${JSON.stringify(key).slice(1, -1)}"`);
    for (const fragment of ['Xk9Q', 'vQ7', 'WzJ', 'pRt', 'ZyW']) assert.ok(!out.includes(fragment), out);
    assert.equal(out, 'Authorization: Bearer ***; header echo "Bearer ***"');
  });

  it('still hides any bearer token, and leaves text without the key alone', () => {
    const redact = redactorFor(['a7Q']);
    assert.equal(redact('Bearer other.token-1 failed'), 'Bearer *** failed');
    assert.equal(redact('nothing to hide here'), 'nothing to hide here');
    assert.equal(redactorFor([undefined, ''])('plain a7Q'), 'plain a7Q');
  });

  it('reads a long run of backslashes once, and still catches the key escaped behind any of them', () => {
    // Each backslash of a run began a match that read the rest of the run: a megabyte of them
    // (any server answer passes here) took hours, 64 KiB seconds.
    const key = KEYS[0];
    const redact = redactorFor([key]);
    const run = '\\'.repeat(1024 * 1024);
    assert.equal(redact(`${run}x`), `${run}x`);
    assert.equal(redact(`${run}${key}`), '***');
    assert.equal(redact(`a\\\\${[...key].join('\\')} b`), 'a*** b');
  });

  it('a key holding backslashes reads a long run after its first characters once, and still catches every run it may be escaped with', () => {
    // `\\*\\` beside the next character's `\\*` split the run every way: n² steps (a megabyte, half an hour).
    const run = '\\'.repeat(1024 * 1024);
    for (const key of [KEYS[0], 'ab\\cd', 'ab\\\\cd', 'ab\\\\\\']) {
      const redact = redactorFor([key]);
      const head = key.slice(0, key.indexOf('\\'));
      // The key's first characters, then the run: no match (or, for a key that ends in backslashes, the key), read once.
      const endsInBackslashes = /\\$/.test(key);
      assert.ok(redact(`${head}${run}x`) === (endsInBackslashes ? '***x' : `${head}${run}x`), JSON.stringify(key));
      const tail = key.slice(key.indexOf('\\'));
      const backslashes = tail.length - tail.replace(/^\\+/, '').length;
      // The key as sent, JSON-escaped once and twice, and behind extra escapes: every run of at least its own backslashes.
      for (const extra of [0, 1, 2, 3, 7]) {
        const escaped = head + '\\'.repeat(backslashes + extra) + tail.slice(backslashes);
        assert.equal(redact(`<${escaped}>`), '<***>', `${JSON.stringify(key)} behind ${extra} more backslashes`);
      }
      if (backslashes > 1) assert.equal(redact(`<${head}${'\\'.repeat(backslashes - 1)}${tail.slice(backslashes)}>`).includes('***'), false, 'fewer backslashes than the key holds is not the key');
      // A backslash of the key as \u005c, the next one as it is.
      const mixed = head + '\\u005c' + '\\'.repeat(backslashes - 1) + tail.slice(backslashes);
      assert.equal(redact(`<${mixed}>`), '<***>', `${JSON.stringify(key)} mixed forms`);
    }
  });
});
