import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { compoundFile, docFile, pdfFile, xlsFile } from '../../test/factories/attachment-files';
import { compoundFileEntryNames, compoundFileKind, extensionOf, sanitizeFileName } from './attachment-files';

describe('attachment file names', () => {
  it('reads the extension in lower case', () => {
    assert.equal(extensionOf('Invoice.PDF'), 'pdf');
    assert.equal(extensionOf('archive.tar.gz'), 'gz');
    assert.equal(extensionOf('README'), '');
    assert.equal(extensionOf('.pdf'), '');
  });

  it('keeps only the last path segment and safe characters', () => {
    assert.equal(sanitizeFileName('../../etc/passwd.pdf', 'pdf'), 'passwd.pdf');
    assert.equal(sanitizeFileName('C:\\Users\\me\\quote.docx', 'docx'), 'quote.docx');
    assert.equal(sanitizeFileName('a"b<c>\r\n%00.pdf', 'pdf'), 'a_b_c_00.pdf');
    assert.equal(sanitizeFileName('Invoice March 2024.PDF', 'pdf'), 'Invoice March 2024.pdf');
    assert.equal(sanitizeFileName('فاتورة.pdf', 'pdf'), 'فاتورة.pdf');
  });

  it('never yields a hidden, empty or overlong name', () => {
    assert.equal(sanitizeFileName('.htaccess.pdf', 'pdf'), 'htaccess.pdf');
    assert.equal(sanitizeFileName('///_.pdf', 'pdf'), 'attachment.pdf');
    assert.equal(sanitizeFileName('"".png', 'png'), 'attachment.png');
    const long = sanitizeFileName(`${'x'.repeat(300)}.xlsx`, 'xlsx');
    assert.equal(long.length, 100);
    assert.ok(long.endsWith('.xlsx'));
  });
});

describe('compound files (doc / xls)', () => {
  it('lists the directory entries of a compound file', () => {
    assert.deepEqual(compoundFileEntryNames(docFile()), ['Root Entry', 'WordDocument']);
    assert.deepEqual(compoundFileEntryNames(xlsFile()), ['Root Entry', 'Workbook']);
  });

  it('tells a Word file from an Excel one, and both from other compound files', () => {
    assert.equal(compoundFileKind(docFile()), 'doc');
    assert.equal(compoundFileKind(xlsFile()), 'xls');
    assert.equal(compoundFileKind(compoundFile('Book')), 'xls');
    assert.equal(compoundFileKind(compoundFile('PowerPoint Document')), 'other');
  });

  it('refuses what is not a readable compound file', () => {
    assert.equal(compoundFileEntryNames(pdfFile()), null);
    assert.equal(compoundFileEntryNames(docFile().subarray(0, 600)), null); // directory cut off
    const loop = docFile();
    loop.writeUInt32LE(1, 512 + 4); // the directory sector's FAT entry points at itself
    assert.equal(compoundFileEntryNames(loop), null);
  });
});
