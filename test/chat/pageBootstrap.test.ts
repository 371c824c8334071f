// The chat page's bootstrap (issue 26): VS Code's language and the string bundle go into one
// <meta> whose content is JSON escaped for an attribute, so a translation (text someone else
// wrote) can never end the attribute or add markup; a language that is not a BCP 47 tag is
// taken as English. The page side (reading it, l10n.config) is test/webview/l10n.test.ts.
import { strict as assert } from 'node:assert';
import { bootstrapMeta, pageLanguage } from '../../src/chat/panel/bootstrap';
import { BOOTSTRAP_META_NAME } from '../../src/chat/protocol';

function decode(meta: string): unknown {
  const content = new RegExp(`^<meta name="${BOOTSTRAP_META_NAME}" content="([^"<>]*)">$`).exec(meta)?.[1];
  assert.ok(content !== undefined, `one attribute, nothing else: ${meta}`);
  return JSON.parse(
    content
      .replace(/&quot;/g, '"')
      .replace(/&#39;/g, "'")
      .replace(/&lt;/g, '<')
      .replace(/&gt;/g, '>')
      .replace(/&amp;/g, '&'),
  );
}

describe('chat page bootstrap', () => {
  it('carries the language and the bundle exactly, whatever the translations hold', () => {
    const l10n = { Send: `"><script>alert(1)</script>&amp; 'x'`, 'Copy/copies a code block': { message: 'Ƈǿƥẏ', comment: ['copies a code block'] } };
    assert.deepEqual(decode(bootstrapMeta({ language: 'de', l10n })), { language: 'de', l10n });
  });

  it('leaves the bundle out for English (VS Code has none) and refuses a language that is not a tag', () => {
    assert.deepEqual(decode(bootstrapMeta({ language: 'en' })), { language: 'en' });
    assert.deepEqual(decode(bootstrapMeta({ language: '"><x' })), { language: 'en' });
    for (const tag of ['en', 'zh-cn', 'pt-br', 'qps-ploc']) assert.equal(pageLanguage(tag), tag);
    for (const bad of ['', 'e', 'en_US', 'en" onload="x', undefined]) assert.equal(pageLanguage(bad), 'en');
  });
});
