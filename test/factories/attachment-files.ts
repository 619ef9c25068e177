import { crc32, deflateSync } from 'node:zlib';

/**
 * Real, minimal files of each attachment type, built in code (no binary fixtures): a PDF with a
 * catalog and trailer, a 1x1 PNG, a JFIF JPEG, OLE2 compound files with a `WordDocument` or
 * `Workbook` stream, and Office Open XML ZIP packages.
 */

export function pdfFile(): Buffer {
  return Buffer.from(
    '%PDF-1.4\n' +
      '1 0 obj\n<< /Type /Catalog /Pages 2 0 R >>\nendobj\n' +
      '2 0 obj\n<< /Type /Pages /Kids [] /Count 0 >>\nendobj\n' +
      'trailer\n<< /Root 1 0 R >>\n%%EOF\n',
    'latin1',
  );
}

function pngChunk(type: string, data: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([length, body, crc]);
}

/** A 1x1 opaque red PNG. */
export function pngFile(): Buffer {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(1, 0); // width
  header.writeUInt32BE(1, 4); // height
  header[8] = 8; // bit depth
  header[9] = 2; // colour type: RGB
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    pngChunk('IHDR', header),
    pngChunk('IDAT', deflateSync(Buffer.from([0, 255, 0, 0]))),
    pngChunk('IEND', Buffer.alloc(0)),
  ]);
}

/** SOI, a JFIF APP0 segment, EOI. */
export function jpegFile(): Buffer {
  return Buffer.concat([
    Buffer.from([0xff, 0xd8]),
    Buffer.from([0xff, 0xe0, 0x00, 0x10]),
    Buffer.from('JFIF\0', 'latin1'),
    Buffer.from([0x01, 0x01, 0x00, 0x00, 0x01, 0x00, 0x01, 0x00, 0x00]),
    Buffer.from([0xff, 0xd9]),
  ]);
}

const FREE = 0xffffffff;
const END_OF_CHAIN = 0xfffffffe;
const FAT_SECTOR = 0xfffffffd;

function directoryEntry(name: string, type: number, child = FREE): Buffer {
  const entry = Buffer.alloc(128);
  if (type === 0) {
    entry.writeUInt32LE(FREE, 68);
    entry.writeUInt32LE(FREE, 72);
    entry.writeUInt32LE(FREE, 76);
    return entry;
  }
  entry.write(name, 0, 'utf16le');
  entry.writeUInt16LE((name.length + 1) * 2, 64);
  entry[66] = type; // 5 root storage, 2 stream
  entry[67] = 1; // black
  entry.writeUInt32LE(FREE, 68); // left sibling
  entry.writeUInt32LE(FREE, 72); // right sibling
  entry.writeUInt32LE(child, 76);
  entry.writeUInt32LE(END_OF_CHAIN, 116); // start sector (empty stream)
  return entry;
}

/**
 * A version-3 compound file (512-byte sectors): header, one FAT sector (sector 0), one directory
 * sector (sector 1) with the root storage and one empty stream named `streamName`.
 */
export function compoundFile(streamName: string): Buffer {
  const header = Buffer.alloc(512);
  Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]).copy(header, 0);
  header.writeUInt16LE(0x3e, 0x18); // minor version
  header.writeUInt16LE(3, 0x1a); // major version
  header.writeUInt16LE(0xfffe, 0x1c); // byte order
  header.writeUInt16LE(9, 0x1e); // sector shift: 512
  header.writeUInt16LE(6, 0x20); // mini sector shift: 64
  header.writeUInt32LE(1, 0x2c); // FAT sectors
  header.writeUInt32LE(1, 0x30); // first directory sector
  header.writeUInt32LE(4096, 0x38); // mini stream cutoff
  header.writeUInt32LE(END_OF_CHAIN, 0x3c); // first mini FAT sector
  header.writeUInt32LE(0, 0x40);
  header.writeUInt32LE(END_OF_CHAIN, 0x44); // first DIFAT sector
  header.writeUInt32LE(0, 0x48);
  for (let i = 0; i < 109; i++) header.writeUInt32LE(i === 0 ? 0 : FREE, 0x4c + i * 4);
  const fat = Buffer.alloc(512, 0xff);
  fat.writeUInt32LE(FAT_SECTOR, 0);
  fat.writeUInt32LE(END_OF_CHAIN, 4);
  const directory = Buffer.concat([
    directoryEntry('Root Entry', 5, 1),
    directoryEntry(streamName, 2),
    directoryEntry('', 0),
    directoryEntry('', 0),
  ]);
  return Buffer.concat([header, fat, directory]);
}

export const docFile = (): Buffer => compoundFile('WordDocument');
export const xlsFile = (): Buffer => compoundFile('Workbook');

/** A ZIP archive with stored (uncompressed) entries. */
export function zipFile(entries: Record<string, string | Buffer>): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const [name, content] of Object.entries(entries)) {
    const data = Buffer.isBuffer(content) ? content : Buffer.from(content, 'utf8');
    const fileName = Buffer.from(name, 'utf8');
    const crc = crc32(data);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4); // version needed
    local.writeUInt16LE(0x0800, 6); // UTF-8 names
    local.writeUInt16LE(0, 8); // stored
    local.writeUInt16LE(0, 10); // time
    local.writeUInt16LE(0x21, 12); // date: 1980-01-01
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(data.length, 18);
    local.writeUInt32LE(data.length, 22);
    local.writeUInt16LE(fileName.length, 26);
    local.writeUInt16LE(0, 28);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(20, 4); // version made by
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(0x0800, 8);
    central.writeUInt16LE(0, 10);
    central.writeUInt16LE(0, 12);
    central.writeUInt16LE(0x21, 14);
    central.writeUInt32LE(crc, 16);
    central.writeUInt32LE(data.length, 20);
    central.writeUInt32LE(data.length, 24);
    central.writeUInt16LE(fileName.length, 28);
    central.writeUInt32LE(offset, 42);
    locals.push(local, fileName, data);
    centrals.push(central, fileName);
    offset += local.length + fileName.length + data.length;
  }
  const directory = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(centrals.length / 2, 8);
  end.writeUInt16LE(centrals.length / 2, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, directory, end]);
}

function officeFile(mainPart: string, contentType: string, body: string): Buffer {
  return zipFile({
    '[Content_Types].xml':
      '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>' +
      '<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">' +
      '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>' +
      '<Default Extension="xml" ContentType="application/xml"/>' +
      `<Override PartName="/${mainPart}" ContentType="${contentType}"/>` +
      '</Types>',
    '_rels/.rels':
      '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>' +
      '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">' +
      '<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument"' +
      ` Target="${mainPart}"/></Relationships>`,
    [mainPart]: body,
  });
}

export const docxFile = (): Buffer =>
  officeFile(
    'word/document.xml',
    'application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml',
    '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>' +
      '<w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main">' +
      '<w:body><w:p><w:r><w:t>Invoice</w:t></w:r></w:p></w:body></w:document>',
  );

export const xlsxFile = (): Buffer =>
  officeFile(
    'xl/workbook.xml',
    'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml',
    '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>' +
      '<workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheets/></workbook>',
  );

/** One real file per allowed extension. */
export const FILES_BY_EXTENSION: Record<string, () => Buffer> = {
  pdf: pdfFile,
  png: pngFile,
  jpg: jpegFile,
  jpeg: jpegFile,
  doc: docFile,
  xls: xlsFile,
  docx: docxFile,
  xlsx: xlsxFile,
};
