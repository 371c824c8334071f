// The splitter decides which parts of a streaming answer are final; a wrong cut would
// render a fence or a list item differently from the whole answer.
import { strict as assert } from 'node:assert';
import { BlockSplitter } from '../../src/webview/blockSplitter';
import MarkdownIt from 'markdown-it';
import { chunk } from './support/conversations';

function split(pieces: string[]): string[] {
  const splitter = new BlockSplitter();
  const blocks = pieces.flatMap((piece) => splitter.append(piece));
  return [...blocks, ...splitter.finish()];
}

describe('BlockSplitter', () => {
  const source = [
    'Intro paragraph',
    'continues here.',
    '',
    '```py',
    'def f():',
    '',
    '    return 1',
    '```',
    '',
    '- item',
    '',
    '  still the item',
    '',
    '~~~~',
    '```',
    '',
    'not a close',
    '~~~~',
    '',
    'End.',
  ].join('\n');

  it('cuts at blank lines outside fences, before unindented lines only', () => {
    assert.deepEqual(split([source]), ['Intro paragraph\ncontinues here.\n\n', '```py\ndef f():\n\n    return 1\n```\n', '- item\n\n  still the item\n\n', '~~~~\n```\n\nnot a close\n~~~~\n', 'End.']);
  });

  it('gives the same blocks however the text is chunked', () => {
    const whole = split([source]);
    for (const seed of [1, 2, 3, 99]) assert.deepEqual(split(chunk(source, seed)), whole, `seed ${seed}`);
    assert.deepEqual(split([...source]), whole, 'one character at a time');
  });

  it('keeps the open block until the stream ends and loses no text', () => {
    const splitter = new BlockSplitter();
    assert.deepEqual(splitter.append('First.\n\nSecond, still'), ['First.\n\n']);
    assert.equal(splitter.openBlock(), 'Second, still');
    assert.deepEqual(splitter.append(' open\n'), []);
    assert.deepEqual(splitter.finish(), ['Second, still open\n']);
    assert.equal(splitter.openBlock(), '');
  });

  it('finishes a fence opened in column 0 at its closing line: text right below it starts the next block', () => {
    const text = 'Intro:\n```py\nx = 1\n```\nRight below the fence.\n~~~\ny\n~~~\n- a list';
    const expected = ['Intro:\n```py\nx = 1\n```\n', 'Right below the fence.\n~~~\ny\n~~~\n', '- a list'];
    assert.deepEqual(split([text]), expected);
    for (const seed of [1, 2, 3]) assert.deepEqual(split(chunk(text, seed)), expected, `seed ${seed}`);
    const splitter = new BlockSplitter();
    assert.deepEqual(splitter.append('```\ncode\n```'), [], 'the closing line is not finished until its line break');
    assert.deepEqual(splitter.append('\n'), ['```\ncode\n```\n']);
  });

  it('keeps a fence indented under a list item in its block after it closes', () => {
    const item = '- item\n  ```\n  code\n  ```\n  more of the item\n';
    assert.deepEqual(split([item]), [item]);
    const numbered = '1. item\n   ```\n   code\n   ```\n   more\n';
    assert.deepEqual(split([numbered]), [numbered]);
  });

  it('knows where a fence in a list item closes, however deep the item, and keeps the cuts of the same text whatever its chunks', () => {
    const text = [
      '1. Install:',
      '   ```bash',
      '   npm i',
      '',
      '   ```',
      'Then run it.',
      '   - nested:',
      '     ~~~~',
      '     code',
      '        ~~~~ (not a close: more marks and text)',
      '       ~~~~~',
      '     more of the item',
      '- ```js',
      '  x()',
      '  ```',
      '10. ten:',
      '    ```',
      '    a',
      '',
      'Back at the margin: the item and its fence ended.',
    ].join('\n');
    const splitter = new BlockSplitter();
    const back = text.indexOf('Back at');
    assert.deepEqual(splitter.append(text.slice(0, back)), []);
    assert.equal(splitter.isInsideFence(), true, 'the 4-space fence of item 10');
    const closing = (line: string) => ({ codeEnd: text.indexOf(`\n${line}\n`) + 1, after: text.indexOf(`\n${line}\n`) + line.length + 2 });
    assert.deepEqual(splitter.fenceClose(1), closing('   ```'));
    assert.deepEqual(splitter.fenceClose(2), closing('       ~~~~~'), 'a closing line up to 3 past the item content');
    assert.deepEqual(splitter.fenceClose(3), closing('  ```'), 'a fence on the item line');
    assert.equal(splitter.fenceClose(4), undefined);
    assert.deepEqual(splitter.append(text.slice(back)), [text.slice(0, back)], 'a blank line and a line at the margin end the item, its fence and the block');
    assert.equal(splitter.isInsideFence(), false);
    const whole = split([text]);
    for (const seed of [1, 2, 3, 5]) assert.deepEqual(split(chunk(text, seed)), whole, `seed ${seed}`);
    assert.deepEqual(split([...text]), whole, 'one character at a time');
  });

  it('ends a list item fence at the first character of a line indented less, before its line ends', () => {
    const splitter = new BlockSplitter();
    const text = '- a\n  - b\n    ```\n    x\n';
    splitter.append(text);
    assert.equal(splitter.isInsideFence(), true);
    splitter.append('N');
    assert.equal(splitter.isInsideFence(), false, 'a line at the margin');
    assert.deepEqual(splitter.fenceClose(1), { codeEnd: text.length, after: text.length });
  });

  it('ends a list item fence indented 3 or less at a line indented less than the item, but cuts nothing until a line that would close it at the top level', () => {
    // Seed 34 of the property test: a fence in "- " indented 3 stayed open past "1. …" at the
    // margin (only fences indented 4 or more were ended), so text far below went into its code.
    const text = '- item\n   ```py\n   x\n  y\n1. next item\n';
    const splitter = new BlockSplitter();
    splitter.append(text.slice(0, text.indexOf('1.')));
    assert.equal(splitter.isInsideFence(), true, 'a line at the item content is code');
    splitter.append('1');
    assert.equal(splitter.isInsideFence(), false, 'a line at the margin ends the item and its fence');
    assert.deepEqual(splitter.fenceClose(1), { codeEnd: text.indexOf('1.'), after: text.indexOf('1.') });
    const state = (pieces: string[]) => {
      const splitter = new BlockSplitter();
      for (const piece of pieces) splitter.append(piece);
      return { inside: splitter.isInsideFence(), close: splitter.fenceClose(1) };
    };
    for (const pieces of [[text], [...text], chunk(text, 1), chunk(text, 2)]) assert.deepEqual(state(pieces), { inside: false, close: { codeEnd: text.indexOf('1.'), after: text.indexOf('1.') } });
    // "2." cannot interrupt a paragraph: it is no item, the fence is at the top level and the
    // blank line is code: the parts must render as the whole.
    const lazy = 'Text\n2. not an item\n   ```\n   code\nstill code\n\nstill code\n```\n\nAfter.\n\nMore.\n';
    const md = new MarkdownIt();
    for (const pieces of [[lazy], [...lazy], chunk(lazy, 1), chunk(lazy, 2)]) {
      const blocks = split(pieces);
      assert.equal(blocks.join(''), lazy);
      assert.equal(blocks.map((block) => md.render(block)).join(''), md.render(lazy));
    }
  });

  it('knows where a fence in a list item in a block quote closes: its closing line and the lines that end its item count from the quote marks', () => {
    // The splitter followed no list item in a quote: a closing line indented 2 past the item's
    // content (4 past the quote marks) was code, so past the live limit the text after it streamed into the code.
    const text = '> - item\n>   ```\n>   code\n>     ```\n>   more\n> 1. item\n>    ~~~\n>    code\n> after\n> ~~~\n';
    const line = (start: string) => text.indexOf(start);
    for (const pieces of [[text], [...text], chunk(text, 1), chunk(text, 2)]) {
      const splitter = new BlockSplitter();
      for (const piece of pieces) splitter.append(piece);
      assert.deepEqual(splitter.fenceOpen(1), { lineStart: line('>   ```'), codeStart: line('>   code'), opening: '```', indent: 2, item: 1, quote: 1 });
      assert.deepEqual(splitter.fenceClose(1), { codeEnd: line('>     ```'), after: line('>   more') });
      assert.deepEqual(splitter.fenceClose(2), { codeEnd: line('> after'), after: line('> after') }, 'a line indented less than the item ends it');
      assert.equal(splitter.fenceOpen(3)?.quote, 1, '"> ~~~" opens a fence of its own');
      assert.equal(splitter.isInsideFence(), true);
    }
  });

  it('ends a 4-space list fence at the same line however its lines arrive, with tabs, a no-break space or a carriage return at their start', () => {
    const text = ['- a', '  - b', '    ```', '    x', '\u00a0', '\t  y', '   \r', '  z', 'w', ''].join('\n');
    const state = (pieces: string[]) => {
      const splitter = new BlockSplitter();
      for (const piece of pieces) splitter.append(piece);
      return { inside: splitter.isInsideFence(), close: splitter.fenceClose(1) };
    };
    const whole = state([text]);
    // The no-break-space line is text to markdown-it, not a blank line, and at the margin: it ends both items and the fence (the code is "x").
    const nbsp = text.indexOf('\n\u00a0\n') + 1;
    assert.deepEqual(whole, { inside: false, close: { codeEnd: nbsp, after: nbsp } }, 'the first line indented less than the item ends it');
    assert.match(new MarkdownIt().render(text), /<pre><code>x\n<\/code><\/pre>/, 'as markdown-it reads it');
    assert.deepEqual(state([...text]), whole, 'one character at a time');
    for (const seed of [1, 2, 3]) assert.deepEqual(state(chunk(text, seed)), whole, `seed ${seed}`);
  });

  it('does not take an indented fence outside any list item for a fence (it is indented code)', () => {
    const splitter = new BlockSplitter();
    splitter.append('Text.\n\n    ```\n');
    assert.equal(splitter.isInsideFence(), false);
    assert.equal(splitter.fenceCount, 0);
  });

  it('treats a backtick line with backticks in its info string as text, not a fence', () => {
    assert.deepEqual(split(['``` a`b\n\nnext']), ['``` a`b\n\n', 'next']);
  });

  it('opens a fence on a CRLF line, so a blank line inside the code does not cut it', () => {
    assert.deepEqual(split(['```py\r\ndef f():\r\n\r\nx = 1\r\n```\r\n\r\nnext']), ['```py\r\ndef f():\r\n\r\nx = 1\r\n```\r\n', 'next']);
  });

  it('takes a line of no-break spaces for text, not a blank line, as markdown-it does: the parts render as the whole', () => {
    const markdown = new MarkdownIt();
    const texts = ['First line\n\u00a0\nstill the same paragraph\n\nNext.', '- item\n\u00a0\n- item two\n\nEnd.', '\u00a0', 'A\n\n\u00a0\n\nB'];
    for (const text of texts) {
      for (const pieces of [[text], [...text], chunk(text, 3)]) {
        const blocks = split(pieces);
        assert.equal(blocks.join(''), text, 'no text lost');
        assert.equal(blocks.map((block) => markdown.render(block)).join(''), markdown.render(text), JSON.stringify(text));
      }
    }
  });

  it('reads a line of a million backticks ending in a carriage return once (the fence pattern tried every length)', () => {
    const fence = `${'`'.repeat(1_000_000)}\r\n\r\nstill code`;
    assert.deepEqual(split([fence]), [fence], 'an open fence: nothing is cut inside it');
  });

  it('cuts text with fences in block quotes only where the parts render as the whole (a blank line ends a quote and its fence)', () => {
    const markdown = new MarkdownIt();
    const texts = [
      '> ```\n> a\n>\n> b\n> ```\nafter\n\nnext',
      '> ```\n> code\n\n```\nnot quoted code\n\nstill code\n```\nafter',
      '> ```\n> a\n\nb\n\n> ~~~\n> x\n\n> y\n> ~~~\nz',
      'Intro:\n> ```py\n> def f():\n>\n>     return 1\n> ```\n\nDone.',
      '- item\n  > ```\n  > code\n\n  > more\n  ```\n  x\n\n  ```\nend',
      '> - a\n>   ```\n>   code\n>\n>   ```\n\nafter',
      '> ```\n```\ncode\n\n> ```\n\n```\nend',
      '>```\n>a\n\n>b\n>```\n\nc',
      '> > ```\n> > a\n> >\n> > b\n\nout',
    ];
    for (const text of texts) {
      for (const pieces of [[text], [...text], chunk(text, 7)]) {
        const blocks = split(pieces);
        assert.equal(blocks.map((block) => markdown.render(block)).join(''), markdown.render(text), JSON.stringify(text));
      }
    }
  });

  it('knows where a fence in a block quote opens and closes: a line without its quote marks ends it', () => {
    const text = 'Intro:\n> ```py\n> x = 1\n>\n> ```\n> quoted text\n> > ~~~\n> > y\n> not the inner quote: ends it\n';
    const splitter = new BlockSplitter();
    assert.deepEqual(splitter.append(text), []);
    const line = (from: string) => text.indexOf(from);
    assert.deepEqual(splitter.fenceOpen(1), { lineStart: line('> ```py'), codeStart: line('> x = 1'), opening: '```py', indent: 0, item: 0, quote: 1 });
    assert.deepEqual(splitter.fenceClose(1), { codeEnd: line('> ```\n'), after: line('> quoted') });
    assert.equal(splitter.fenceOpen(2)?.quote, 2);
    assert.deepEqual(splitter.fenceClose(2), { codeEnd: line('> not'), after: line('> not') });
    assert.equal(splitter.isInsideFence(), false);
  });

  it('reads the open block, and any part of it, the same however its text arrived (it is kept as the pieces it came in)', () => {
    const text = `${source}\n\n- a long list\n${'- item [x] `code`\n  ```\n  y\n  ```\n'.repeat(40)}\nEnd without a break`;
    for (const pieces of [[text], [...text], chunk(text, 4), chunk(text, 11)]) {
      const splitter = new BlockSplitter();
      let received = 0;
      for (const piece of pieces) {
        splitter.append(piece);
        received += piece.length;
        const start = splitter.openBlockStart();
        assert.equal(splitter.openBlock(), text.slice(start, received));
        assert.equal(splitter.openBlockLength(), received - start);
        for (const [from, to] of [
          [start, received],
          [start + 1, received - 1],
          [Math.max(start, received - 7), received],
        ])
          assert.equal(splitter.slice(from, to), text.slice(from, Math.max(from, to)));
      }
      const open = splitter.openBlock();
      assert.equal(open, text.slice(splitter.openBlockStart()));
      assert.deepEqual(splitter.finish(), [open], 'nothing lost');
    }
  });
});
