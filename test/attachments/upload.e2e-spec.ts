import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import {
  docFile,
  docxFile,
  FILES_BY_EXTENSION,
  pdfFile,
  pngFile,
  xlsFile,
  xlsxFile,
  zipFile,
} from '../factories/attachment-files';
import { binaryParser, filesUnder, multipartCreate, withFields } from '../factories/multipart';
import { transactionBody } from '../factories/transaction.factory';
import { Seeded, seedBasics } from '../setup/fixtures';
import { startApp, TestApp } from '../setup/test-app';

const PATH = '/b/checkout/v1/pymt-txn/';
const DEFAULT_LIMIT = 2_500_000;
const TYPES: Record<string, string> = {
  pdf: 'application/pdf',
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  doc: 'application/msword',
  xls: 'application/vnd.ms-excel',
  docx: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
};
const NOT_ALLOWED = (ext: string) =>
  `File extension “${ext}” is not allowed. Allowed extensions are: pdf, jpeg, png, doc, docx, jpg, xls, xlsx.`;
const MISMATCH = (ext: string) => `The file content does not match its extension “${ext}”.`;

/** A PDF of exactly `size` bytes (a comment pads it). */
function pdfOfSize(size: number): Buffer {
  const base = pdfFile();
  return Buffer.concat([base, Buffer.from('%' + 'x'.repeat(size - base.length - 2) + '\n')]);
}

describe('transaction attachments', () => {
  let t: TestApp;
  let s: Seeded;
  let dir: string;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'checkout-attachments-'));
    t = await startApp({ env: { ATTACHMENT_DIR: dir } });
    s = await seedBasics(t);
  });
  after(async () => {
    await t.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const create = () => t.http().post(PATH).set('Authorization', s.apiKey);
  const update = (sessionId: string) => t.http().patch(`${PATH}${sessionId}/`).set('Authorization', s.apiKey);
  const download = (url: string) => t.http().get(new URL(url).pathname).buffer(true).parse(binaryParser);

  for (const [ext, make] of Object.entries(FILES_BY_EXTENSION)) {
    it(`accepts a real .${ext} file and serves the same bytes as an attachment`, async () => {
      const bytes = make();
      const res = await multipartCreate(create()).attach('attachment', bytes, `invoice.${ext}`).expect(201);
      const url = String(res.body.attachment);
      assert.match(url, new RegExp(`^${t.url}/b/checkout/attachments/[A-Za-z0-9_-]{43}\\.${ext}$`));
      const served = await download(url).expect(200);
      assert.ok(Buffer.isBuffer(served.body));
      assert.ok(bytes.equals(served.body), 'served bytes differ from the upload');
      assert.equal(served.headers['content-type'], TYPES[ext]);
      assert.equal(served.headers['content-disposition'], `attachment; filename=invoice.${ext}`);
      assert.equal(served.headers['x-content-type-options'], 'nosniff');
      assert.equal(served.headers['content-length'], String(bytes.length));
    });
  }

  it('gives every upload its own unguessable URL', async () => {
    const urls = new Set<string>();
    for (let i = 0; i < 3; i++) {
      const res = await multipartCreate(create()).attach('attachment', pdfFile(), 'same.pdf').expect(201);
      urls.add(String(res.body.attachment));
    }
    assert.equal(urls.size, 3);
  });

  it('shows the attachment URL on retrieve', async () => {
    const created = await multipartCreate(create()).attach('attachment', pngFile(), 'logo.png').expect(201);
    const got = await t.http().get(`${PATH}${created.body.session_id}/`).expect(200);
    assert.equal(got.body.attachment, created.body.attachment);
  });

  it('reads the extension case-insensitively and stores a sanitised name', async () => {
    const res = await multipartCreate(create())
      .attach('attachment', pdfFile(), '../../etc/My "Invoice" <2024>.PDF')
      .expect(201);
    assert.match(String(res.body.attachment), /\/[A-Za-z0-9_-]{43}\.pdf$/, 'the URL carries no client name');
    const served = await download(String(res.body.attachment)).expect(200);
    assert.equal(served.headers['content-disposition'], 'attachment; filename="My _Invoice_ _2024_.pdf"');
  });

  it('keeps a non-ASCII file name for Content-Disposition, out of the URL', async () => {
    const res = await multipartCreate(create()).attach('attachment', pdfFile(), 'فاتورة.pdf').expect(201);
    const url = String(res.body.attachment);
    assert.match(url, /\/b\/checkout\/attachments\/[A-Za-z0-9_-]{43}\.pdf$/);
    const served = await download(url).expect(200);
    assert.match(
      String(served.headers['content-disposition']),
      new RegExp(`filename\\*=UTF-8''${encodeURIComponent('فاتورة.pdf')}`),
    );
  });

  it('refuses an extension outside the list', async () => {
    const res = await multipartCreate(create()).attach('attachment', pdfFile(), 'invoice.exe').expect(400);
    assert.deepEqual(res.body, { attachment: [NOT_ALLOWED('exe')] });
  });

  it('refuses a file without an extension', async () => {
    const res = await multipartCreate(create()).attach('attachment', pdfFile(), 'invoice').expect(400);
    assert.deepEqual(res.body, { attachment: [NOT_ALLOWED('')] });
  });

  const renamed: [string, () => Buffer, string][] = [
    ['a PNG named .pdf', pngFile, 'pdf'],
    ['a PDF named .jpg', pdfFile, 'jpg'],
    ['an .xls named .doc', xlsFile, 'doc'],
    ['a .doc named .xls', docFile, 'xls'],
    ['a .docx named .xlsx', docxFile, 'xlsx'],
    ['an .xlsx named .docx', xlsxFile, 'docx'],
    ['a plain ZIP named .docx', () => zipFile({ 'readme.txt': 'hello' }), 'docx'],
    ['text named .png', () => Buffer.from('not a picture'), 'png'],
  ];
  for (const [label, make, ext] of renamed) {
    it(`refuses ${label}: the bytes must match the extension`, async () => {
      const res = await multipartCreate(create()).attach('attachment', make(), `file.${ext}`).expect(400);
      assert.deepEqual(res.body, { attachment: [MISMATCH(ext)] });
    });
  }

  it('refuses an empty file', async () => {
    const res = await multipartCreate(create())
      .attach('attachment', Buffer.alloc(0), 'empty.pdf')
      .expect(400);
    assert.deepEqual(res.body, { attachment: ['The submitted file is empty.'] });
  });

  it('accepts a file of exactly ATTACHMENT_MAX_BYTES (default 2.5 MB)', async () => {
    assert.equal(t.config.attachmentMaxBytes, DEFAULT_LIMIT);
    const bytes = pdfOfSize(DEFAULT_LIMIT);
    const res = await multipartCreate(create()).attach('attachment', bytes, 'big.pdf').expect(201);
    const served = await download(String(res.body.attachment)).expect(200);
    assert.equal((served.body as Buffer).length, DEFAULT_LIMIT);
  });

  it('answers 413 to a file one byte over the limit, and stores nothing', async () => {
    const before = filesUnder(dir);
    const res = await multipartCreate(create())
      .attach('attachment', pdfOfSize(DEFAULT_LIMIT + 1), 'big.pdf')
      .expect(413);
    assert.deepEqual(res.body, {
      detail: `The attachment is too large: at most ${DEFAULT_LIMIT} bytes are accepted.`,
    });
    assert.deepEqual(filesUnder(dir), before);
  });

  it('refuses two files in one request', async () => {
    const before = filesUnder(dir);
    const res = await multipartCreate(create())
      .attach('attachment', pdfFile(), 'one.pdf')
      .attach('attachment', pdfFile(), 'two.pdf')
      .expect(400);
    assert.deepEqual(res.body, { attachment: ['Only one file may be sent.'] });
    assert.deepEqual(filesUnder(dir), before);
  });

  it('refuses a file sent under another field name', async () => {
    const res = await multipartCreate(create()).attach('invoice', pdfFile(), 'invoice.pdf').expect(400);
    assert.deepEqual(res.body, { invoice: ['Only the "attachment" field may carry a file.'] });
  });

  it('refuses an attachment in a JSON body with the contract’s message', async () => {
    const res = await create()
      .send(transactionBody({ attachment: 'JVBERi0xLjQK' }))
      .expect(400);
    assert.deepEqual(res.body, { attachment: ['Attachments can only be sent as multipart/form-data.'] });
  });

  it('refuses an attachment in a urlencoded body', async () => {
    const res = await create()
      .type('form')
      .send({ type: 'e_commerce', amount: '1', currency_code: 'KWD', pg_codes: 'sandbox', attachment: 'x' })
      .expect(400);
    assert.deepEqual(res.body, { attachment: ['Attachments can only be sent as multipart/form-data.'] });
  });

  it('refuses text sent as the attachment field of a multipart body', async () => {
    const res = await multipartCreate(create(), { attachment: 'invoice.pdf' }).expect(400);
    assert.deepEqual(res.body, {
      attachment: ['The submitted data was not a file. Check the encoding type on the form.'],
    });
  });

  it('answers 400, never 5xx, to a malformed multipart body', async () => {
    const noBoundary = await create().set('Content-Type', 'multipart/form-data').send('garbage').expect(400);
    assert.match(String(noBoundary.body.detail), /^Multipart form parse error - /);
    const truncated = await create()
      .set('Content-Type', 'multipart/form-data; boundary=XYZ')
      .send('--XYZ\r\nContent-Disposition: form-data; name="attachment"; filename="a.pdf"\r\n\r\n%PDF-1.4')
      .expect(400);
    assert.match(String(truncated.body.detail), /^Multipart form parse error - /);
  });

  it('reports a bad file together with the other fields’ errors', async () => {
    const res = await multipartCreate(create(), { amount: '-1' })
      .attach('attachment', pngFile(), 'x.pdf')
      .expect(400);
    assert.deepEqual(Object.keys(res.body as object).sort(), ['amount', 'attachment']);
    assert.deepEqual(res.body.attachment, [MISMATCH('pdf')]);
  });

  it('leaves no file in the storage folder when a create fails validation', async () => {
    const before = filesUnder(dir);
    await multipartCreate(create(), { currency_code: 'XXX' })
      .attach('attachment', pdfFile(), 'a.pdf')
      .expect(400);
    await multipartCreate(create(), { pg_codes: ['nope'] })
      .attach('attachment', pdfFile(), 'a.pdf')
      .expect(400);
    await multipartCreate(create()).attach('attachment', pngFile(), 'a.pdf').expect(400);
    assert.deepEqual(filesUnder(dir), before);
  });

  it('leaves no file behind when the caller may not use the gateway (403)', async () => {
    const before = filesUnder(dir);
    await withFields(
      t.http().post(PATH).set('Authorization', s.merchant),
      transactionBody({ pg_codes: ['other'] }),
    )
      .attach('attachment', pdfFile(), 'a.pdf')
      .expect(403);
    assert.deepEqual(filesUnder(dir), before);
  });

  it('keeps exactly one file when concurrent creates race for one order_no (losers roll back)', async () => {
    const before = filesUnder(dir).length;
    const results = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        multipartCreate(create(), { order_no: 'race-1' }).attach('attachment', pdfFile(), `r${i}.pdf`),
      ),
    );
    const statuses = results.map((r) => r.status).sort();
    assert.deepEqual(statuses, [201, 400, 400, 400, 400, 400]);
    for (const r of results.filter((x) => x.status === 400)) {
      assert.deepEqual(r.body, { order_no: ['A live transaction with this order_no already exists.'] });
    }
    assert.equal(filesUnder(dir).length, before + 1);
  });

  it('stores each accepted file once, under a random name unrelated to the client’s', async () => {
    const before = new Set(filesUnder(dir));
    await multipartCreate(create()).attach('attachment', pdfFile(), 'secret-name.pdf').expect(201);
    const added = filesUnder(dir).filter((f) => !before.has(f));
    assert.equal(added.length, 1);
    assert.match(added[0], /^[0-9a-f]{32}\.pdf$/);
  });

  it("answers 404 for an unknown token, another extension, or the URL with the client's name", async () => {
    const res = await t
      .http()
      .get(`/b/checkout/attachments/${'A'.repeat(43)}.pdf`)
      .expect(404);
    assert.deepEqual(res.body, { detail: 'Not found.' });
    const created = await multipartCreate(create())
      .attach('attachment', pdfFile(), 'invoice.pdf')
      .expect(201);
    const path = new URL(String(created.body.attachment)).pathname;
    await t.http().get(path).expect(200);
    const token = path.slice(path.lastIndexOf('/') + 1, -'.pdf'.length);
    for (const other of [`${token}.png`, `${token}`, `${token}/invoice.pdf`, `${token}.pdf/x`]) {
      const miss = await t.http().get(`/b/checkout/attachments/${other}`).expect(404);
      assert.deepEqual(miss.body, { detail: 'Not found.' }, other);
    }
  });

  describe('on update', () => {
    it('replaces the file: the new one is served, the old URL and file are gone', async () => {
      const created = await multipartCreate(create()).attach('attachment', pdfFile(), 'old.pdf').expect(201);
      const oldUrl = String(created.body.attachment);
      const beforeUpdate = filesUnder(dir);
      const updated = await update(created.body.session_id as string)
        .attach('attachment', pngFile(), 'new.png')
        .expect(200);
      const newUrl = String(updated.body.attachment);
      assert.match(newUrl, /\/[A-Za-z0-9_-]{43}\.png$/);
      assert.notEqual(newUrl, oldUrl);
      const served = await download(newUrl).expect(200);
      assert.equal(served.headers['content-disposition'], 'attachment; filename=new.png');
      assert.ok(pngFile().equals(served.body as Buffer));
      await t.http().get(new URL(oldUrl).pathname).expect(404);
      const afterUpdate = filesUnder(dir);
      assert.equal(afterUpdate.length, beforeUpdate.length, 'the replaced file was not removed');
    });

    it('keeps the attachment when an update sends no file', async () => {
      const created = await multipartCreate(create()).attach('attachment', pdfFile(), 'keep.pdf').expect(201);
      const updated = await update(created.body.session_id as string)
        .send({ customer_first_name: 'Ali' })
        .expect(200);
      assert.equal(updated.body.attachment, created.body.attachment);
      await download(String(updated.body.attachment)).expect(200);
    });

    it('clears the attachment with null (JSON) and removes its file', async () => {
      const created = await multipartCreate(create()).attach('attachment', pdfFile(), 'gone.pdf').expect(201);
      const count = filesUnder(dir).length;
      const updated = await update(created.body.session_id as string)
        .send({ attachment: null })
        .expect(200);
      assert.equal(updated.body.attachment, null);
      await t
        .http()
        .get(new URL(String(created.body.attachment)).pathname)
        .expect(404);
      assert.equal(filesUnder(dir).length, count - 1);
    });

    it('clears the attachment with an empty multipart value', async () => {
      const created = await multipartCreate(create()).attach('attachment', pdfFile(), 'gone.pdf').expect(201);
      const updated = await withFields(update(created.body.session_id as string), { attachment: '' }).expect(
        200,
      );
      assert.equal(updated.body.attachment, null);
    });

    it('a rejected update keeps the old file and stores nothing new', async () => {
      const created = await multipartCreate(create()).attach('attachment', pdfFile(), 'stay.pdf').expect(201);
      const before = filesUnder(dir);
      await withFields(update(created.body.session_id as string), { amount: '0' })
        .attach('attachment', pngFile(), 'new.png')
        .expect(400);
      await update(created.body.session_id as string)
        .attach('attachment', pngFile(), 'bad.pdf')
        .expect(400);
      assert.deepEqual(filesUnder(dir), before);
      const got = await t.http().get(`${PATH}${created.body.session_id}/`).expect(200);
      assert.equal(got.body.attachment, created.body.attachment);
      await download(String(created.body.attachment)).expect(200);
    });

    it('refuses an attachment in a JSON update', async () => {
      const created = await create().send(transactionBody()).expect(201);
      const res = await update(created.body.session_id as string)
        .send({ attachment: 'x' })
        .expect(400);
      assert.deepEqual(res.body, { attachment: ['Attachments can only be sent as multipart/form-data.'] });
    });
  });
});

describe('attachment size limit from ATTACHMENT_MAX_BYTES', () => {
  let t: TestApp;
  let s: Seeded;
  let dir: string;
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'checkout-attachments-'));
    t = await startApp({ env: { ATTACHMENT_DIR: dir, ATTACHMENT_MAX_BYTES: '1000' } });
    s = await seedBasics(t);
  });
  after(async () => {
    await t.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('takes a file at the configured limit and refuses one byte more with 413', async () => {
    await multipartCreate(t.http().post(PATH).set('Authorization', s.apiKey))
      .attach('attachment', pdfOfSize(1000), 'a.pdf')
      .expect(201);
    const before = filesUnder(dir);
    await multipartCreate(t.http().post(PATH).set('Authorization', s.apiKey))
      .attach('attachment', pdfOfSize(1001), 'a.pdf')
      .expect(413);
    assert.deepEqual(filesUnder(dir), before);
  });

  it('caps the whole multipart body, not only the file (fields count too)', async () => {
    const big = 'x'.repeat(900_000);
    const res = await multipartCreate(t.http().post(PATH).set('Authorization', s.apiKey), {
      note_1: big,
      note_2: big,
    }).expect(413);
    assert.deepEqual(res.body, { detail: 'Request body is too large.' });
  });

  it('cuts off a body far over the limit without storing it', async () => {
    const before = filesUnder(dir);
    const res = await multipartCreate(t.http().post(PATH).set('Authorization', s.apiKey))
      .attach('attachment', pdfOfSize(5_000_000), 'huge.pdf')
      .expect(413);
    assert.equal(typeof res.body.detail, 'string');
    assert.deepEqual(filesUnder(dir), before);
  });
});

describe('uploads left behind by a crashed process', () => {
  it('are removed at start-up once older than an hour; recent ones are left alone', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'checkout-attachments-'));
    const incoming = join(dir, '.incoming');
    mkdirSync(incoming, { recursive: true });
    writeFileSync(join(incoming, 'stale'), 'x');
    const twoHoursAgo = new Date(Date.now() - 2 * 3600 * 1000);
    utimesSync(join(incoming, 'stale'), twoHoursAgo, twoHoursAgo);
    writeFileSync(join(incoming, 'in-flight'), 'x');
    const t = await startApp({ env: { ATTACHMENT_DIR: dir } });
    try {
      for (let i = 0; i < 50 && filesUnder(dir).includes('.incoming/stale'); i++) await sleep(20);
      assert.deepEqual(filesUnder(dir), ['.incoming/in-flight']);
    } finally {
      await t.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
