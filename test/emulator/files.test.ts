// Upload (D7), list (D6, D8, D10) and delete (D11) over real HTTP.
import { strict as assert } from 'node:assert';
import { assertErrorBody, call, list, upload, uploadForm, useFreshEmulator } from './support';

const FILES = '/ksm/rag/v5/files';

describe('emulator: file endpoints', () => {
  const s = useFreshEmulator({ apiKeys: { 'key-dev': 'dev', 'key-alice': 'alice' }, maxUploadBytes: 64 * 1024 });

  it('uploads repeated file parts, answering one FileInfo per part in order, status uploaded', async () => {
    const answer = await call(
      s.emu,
      'POST',
      FILES,
      uploadForm({ volume: 'docs', embedding: 'emu-embed', do_chunking: '1' }, [
        { name: 'one.txt', content: 'first file' },
        { name: 'two.md', content: '# second' },
      ]),
    );
    assert.equal(answer.status, 200);
    assert.equal(answer.json.code, 200);
    assert.equal(answer.json.message, 'OK');
    assert.deepEqual(
      answer.json.infoz.map((f: any) => [f.filename, f.status, f.filesize, f.isdir]),
      [
        ['one.txt', 'uploaded', 10, 0],
        ['two.md', 'uploaded', 8, 0],
      ],
    );
    for (const info of answer.json.infoz) {
      assert.match(info.uuid, /^[0-9a-f-]{36}$/);
      assert.match(info.date, /^\d{14}$/);
    }
    const year = Number(answer.json.infoz[0].date.slice(0, 4));
    assert.equal(year, new Date().getUTCFullYear());
  });

  it('accepts fields after the files, UTF-8 names, strips /-directory parts and keeps backslashes (D7)', async () => {
    const form = uploadForm(
      { volume: 'late-fields', embedding: 'emu-embed' },
      [
        { name: 'Résumé 日本.txt', content: 'x' },
        { name: '../../etc/passwd', content: 'y' },
        { name: 'back\\slash.txt', content: 'z' },
        { name: 'C:\\Users\\me\\notes.txt', content: 'w' },
      ],
      false,
    );
    const answer = await call(s.emu, 'POST', FILES, form);
    assert.equal(answer.status, 200, answer.text);
    const names = ['Résumé 日本.txt', 'passwd', 'back\\slash.txt', 'C:\\Users\\me\\notes.txt'];
    assert.deepEqual(
      answer.json.infoz.map((f: any) => f.filename),
      names,
    );
    assert.deepEqual(
      (await list(s.emu, 'late-fields')).json.infoz.map((f: any) => f.filename),
      names,
      'stored as answered',
    );
  });

  it('decodes an RFC 5987 filename*= (UTF-8, percent-encoded), which wins over a plain filename', async () => {
    const name = 'naïve back\\slash 日本.txt';
    const body = [
      '--B',
      'Content-Disposition: form-data; name="volume"',
      '',
      'rfc5987',
      '--B',
      'Content-Disposition: form-data; name="embedding"',
      '',
      'emu-embed',
      '--B',
      `Content-Disposition: form-data; name="file"; filename="fallback.txt"; filename*=UTF-8''${encodeURIComponent(name)}`,
      '',
      'text',
      '--B',
      `Content-Disposition: form-data; name="file"; filename*=utf-8''${encodeURIComponent('only-star ä.txt')}`,
      '',
      'text',
      '--B--',
      '',
    ].join('\r\n');
    const answer = await call(s.emu, 'POST', FILES, body, { headers: { 'Content-Type': 'multipart/form-data; boundary=B' } });
    assert.equal(answer.status, 200, answer.text);
    assert.deepEqual(
      answer.json.infoz.map((f: any) => f.filename),
      [name, 'only-star ä.txt'],
    );
  });

  it('lists in upload order with total, default page 20, offset and limit (D10)', async () => {
    const names = Array.from({ length: 25 }, (_, i) => `f${String(i).padStart(2, '0')}.txt`);
    await upload(
      s.emu,
      'paging',
      names.slice(0, 10).map((name) => ({ name, content: name })),
      0,
    );
    await upload(
      s.emu,
      'paging',
      names.slice(10).map((name) => ({ name, content: name })),
      0,
    );
    const first = await call(s.emu, 'GET', FILES, { volume: 'paging' });
    assert.equal(first.json.total, 25);
    assert.deepEqual(
      first.json.infoz.map((f: any) => f.filename),
      names.slice(0, 20),
    );
    const second = await list(s.emu, 'paging', 20, 3);
    assert.deepEqual(
      second.json.infoz.map((f: any) => f.filename),
      names.slice(20, 23),
    );
    assert.equal((await list(s.emu, 'paging', 100, 5)).json.infoz.length, 0);
  });

  it('rejects bad paging values with 400 naming the field', async () => {
    assertErrorBody(await list(s.emu, 'paging', -1, 5), 400, 'offset');
    assertErrorBody(await list(s.emu, 'paging', 0, 0), 400, 'limit');
    assertErrorBody(await list(s.emu, 'paging', 0, 1001), 400, 'limit');
    assertErrorBody(await call(s.emu, 'GET', FILES, { volume: 'paging', limit: '5' }), 400, 'limit');
    assertErrorBody(await call(s.emu, 'GET', FILES, { volume: 'paging', offset: 1.5 }), 400, 'offset');
  });

  it("volume rules: required, valid name (D5), unknown named 404 (D6), own personal always exists, another user's 403", async () => {
    assertErrorBody(await call(s.emu, 'GET', FILES, {}), 400, 'volume');
    assertErrorBody(await call(s.emu, 'GET', FILES), 400, 'volume');
    assertErrorBody(await list(s.emu, 'bad name!'), 400, 'volume');
    assertErrorBody(await list(s.emu, '{bad user}'), 400, 'volume');
    assertErrorBody(await list(s.emu, 'never-uploaded'), 404, 'volume');
    const own = await list(s.emu, '{dev}');
    assert.equal(own.status, 200);
    assert.equal(own.json.total, 0);
    assertErrorBody(await list(s.emu, '{alice}'), 403, 'volume');
    const alice = await call(s.emu, 'GET', FILES, { volume: '{alice}' }, { key: 'key-alice' });
    assert.equal(alice.status, 200);
  });

  it("uploads into {<user_id>} of the caller, refuses another user's personal volume with 403 and stores nothing", async () => {
    const [info] = await upload(s.emu, '{dev}', [{ name: 'mine.txt', content: 'mine' }]);
    assert.equal((await list(s.emu, '{dev}')).json.infoz[0].uuid, info.uuid);
    const refused = await call(s.emu, 'POST', FILES, uploadForm({ volume: '{alice}', embedding: 'emu-embed' }, [{ name: 'x.txt', content: 'x' }]));
    assertErrorBody(refused, 403, 'volume');
    assert.equal((await call(s.emu, 'GET', FILES, { volume: '{alice}' }, { key: 'key-alice' })).json.total, 0);
  });

  const refusals: Array<[string, Record<string, string>, Array<{ name: string; content: string }>, number, string]> = [
    ['missing volume', { embedding: 'emu-embed' }, [{ name: 'a.txt', content: 'a' }], 400, 'volume'],
    ['bad volume name', { volume: '-bad', embedding: 'emu-embed' }, [{ name: 'a.txt', content: 'a' }], 400, 'volume'],
    ['missing embedding', { volume: 'refused' }, [{ name: 'a.txt', content: 'a' }], 400, 'embedding'],
    ['unknown embedding model', { volume: 'refused', embedding: 'text-embedding-3' }, [{ name: 'a.txt', content: 'a' }], 400, 'embedding'],
    ['do_chunking 3', { volume: 'refused', embedding: 'emu-embed', do_chunking: '3' }, [{ name: 'a.txt', content: 'a' }], 400, 'do_chunking'],
    ['do_chunking "yes"', { volume: 'refused', embedding: 'emu-embed', do_chunking: 'yes' }, [{ name: 'a.txt', content: 'a' }], 400, 'do_chunking'],
    ['no file part', { volume: 'refused', embedding: 'emu-embed' }, [], 400, 'file'],
    [
      'an empty file name',
      { volume: 'refused', embedding: 'emu-embed' },
      [
        { name: 'ok.txt', content: 'a' },
        { name: '', content: 'b' },
      ],
      400,
      'file',
    ],
  ];
  for (const [label, fields, files, status, param] of refusals) {
    it(`upload with ${label}: ${status} naming ${param}, and nothing stored (D7)`, async () => {
      assertErrorBody(await call(s.emu, 'POST', FILES, uploadForm(fields, files)), status, param);
      assertErrorBody(await list(s.emu, 'refused'), 404, 'volume');
    });
  }

  it('an upload over the size limit is 413 (declared length or counted while streaming) and stores nothing', async () => {
    const big = 'x'.repeat(80 * 1024);
    assertErrorBody(await call(s.emu, 'POST', FILES, uploadForm({ volume: 'too-big', embedding: 'emu-embed' }, [{ name: 'big.txt', content: big }])), 413, null);
    const response = await fetch(`${s.emu.url}${FILES}`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${s.emu.apiKey}`, 'Content-Type': 'multipart/form-data; boundary=XyZ' },
      body: new ReadableStream({
        start(controller) {
          const encoder = new TextEncoder();
          controller.enqueue(encoder.encode('--XyZ\r\nContent-Disposition: form-data; name="volume"\r\n\r\ntoo-big\r\n'));
          controller.enqueue(encoder.encode('--XyZ\r\nContent-Disposition: form-data; name="file"; filename="big.txt"\r\n\r\n'));
          for (let i = 0; i < 10; i++) controller.enqueue(encoder.encode('y'.repeat(16 * 1024)));
          controller.enqueue(encoder.encode('\r\n--XyZ--\r\n'));
          controller.close();
        },
      }),
      duplex: 'half',
    } as RequestInit);
    assert.equal(response.status, 413);
    assert.equal(((await response.json()) as any).error.type, 'payload_too_large');
    assertErrorBody(await list(s.emu, 'too-big'), 404, 'volume');
  });

  it('allows two files with the same name in a volume (distinct uuids)', async () => {
    const [a] = await upload(s.emu, 'twins', [{ name: 'same.txt', content: '1' }], 0);
    const [b] = await upload(s.emu, 'twins', [{ name: 'same.txt', content: '2' }], 0);
    assert.notEqual(a.uuid, b.uuid);
    assert.equal((await list(s.emu, 'twins')).json.total, 2);
  });

  it('deletes some ids (200 with deleted and not_found), none (404 D2 plus not_found), and validates uuidz (D11)', async () => {
    const infos = await upload(s.emu, 'deleting', [
      { name: 'a.txt', content: 'alpha' },
      { name: 'b.txt', content: 'beta' },
      { name: 'c.txt', content: 'gamma' },
    ]);
    await s.emu.waitForIdle();
    const some = await call(s.emu, 'DELETE', FILES, { volume: 'deleting', uuidz: [infos[0].uuid, 'missing-id'] });
    assert.equal(some.status, 200);
    assert.deepEqual([some.json.code, some.json.message, some.json.deleted, some.json.not_found], [200, 'OK', [infos[0].uuid], ['missing-id']]);
    assert.deepEqual(
      (await list(s.emu, 'deleting')).json.infoz.map((f: any) => f.filename),
      ['b.txt', 'c.txt'],
    );
    const none = await call(s.emu, 'DELETE', FILES, { volume: 'deleting', uuidz: [infos[0].uuid] });
    assertErrorBody(none, 404, 'uuidz');
    assert.deepEqual(none.json.not_found, [infos[0].uuid]);
    assertErrorBody(await call(s.emu, 'DELETE', FILES, { volume: 'deleting', uuidz: [] }), 400, 'uuidz');
    assertErrorBody(await call(s.emu, 'DELETE', FILES, { volume: 'deleting', uuidz: 'x' }), 400, 'uuidz');
    assertErrorBody(await call(s.emu, 'DELETE', FILES, { volume: 'deleting', uuidz: [1] }), 400, 'uuidz');
    assertErrorBody(await call(s.emu, 'DELETE', FILES, { uuidz: ['x'] }), 400, 'volume');
    assertErrorBody(await call(s.emu, 'DELETE', FILES, { volume: '{alice}', uuidz: ['x'] }), 403, 'volume');
  });

  it('a file deleted from one volume is not deleted through another volume name', async () => {
    const [info] = await upload(s.emu, 'vol-a', [{ name: 'keep.txt', content: 'keep' }], 0);
    const wrongVolume = await call(s.emu, 'DELETE', FILES, { volume: 'vol-b', uuidz: [info.uuid] });
    assertErrorBody(wrongVolume, 404, 'uuidz');
    assert.equal((await list(s.emu, 'vol-a')).json.total, 1);
  });
});
