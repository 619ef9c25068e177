import { extname } from 'node:path';

/** The extensions an attachment may have (contract §4), and the type each is served with. */
export const ATTACHMENT_TYPES = {
  pdf: 'application/pdf',
  jpeg: 'image/jpeg',
  png: 'image/png',
  doc: 'application/msword',
  docx: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  jpg: 'image/jpeg',
  xls: 'application/vnd.ms-excel',
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
} as const;

export type AttachmentExtension = keyof typeof ATTACHMENT_TYPES;
export const ATTACHMENT_EXTENSIONS = Object.keys(ATTACHMENT_TYPES) as AttachmentExtension[];

export function isAttachmentExtension(ext: string): ext is AttachmentExtension {
  return Object.prototype.hasOwnProperty.call(ATTACHMENT_TYPES, ext);
}

/** The lower-case extension of a file name, without the dot ("" when it has none). */
export function extensionOf(fileName: string): string {
  return extname(fileName).slice(1).toLowerCase();
}

const MAX_NAME_LENGTH = 100;

/**
 * A client's file name made safe to store, put in a URL and in `Content-Disposition`: the last
 * path segment only, Unicode letters and digits, `.`, `_`, `-` and spaces kept, everything else
 * (controls, quotes, slashes, `%`…) replaced by `_`; no leading dots; at most 100 characters with
 * the extension kept. An empty result becomes `attachment.<ext>`.
 */
export function sanitizeFileName(original: string, ext: AttachmentExtension): string {
  const base = original.split(/[\\/]/).pop() ?? '';
  let stem = base
    .slice(0, base.length - extname(base).length)
    .normalize('NFC')
    .replace(/[^\p{L}\p{N}._ -]/gu, '_')
    .replace(/\s+/g, ' ')
    .replace(/_+/g, '_')
    .replace(/^[.\s_]+/, '')
    .replace(/[.\s]+$/, '');
  if (!/[\p{L}\p{N}]/u.test(stem)) stem = 'attachment';
  const suffix = `.${ext}`;
  stem = [...stem]
    .slice(0, MAX_NAME_LENGTH - suffix.length)
    .join('')
    .replace(/[.\s]+$/, '');
  return `${stem}${suffix}`;
}

/** OLE2 / Compound File Binary signature (legacy .doc and .xls). */
const CFB_SIGNATURE = Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]);
const FREE_SECT = 0xffffffff;
const END_OF_CHAIN = 0xfffffffe;

/**
 * The stream and storage names in the directory of a Compound File (OLE2), or null when the bytes
 * are not a readable one. Follows the header's FAT sectors (the first 109, enough for files far
 * beyond the attachment size limit) and the directory chain.
 */
export function compoundFileEntryNames(bytes: Buffer): string[] | null {
  if (bytes.length < 512 || !bytes.subarray(0, 8).equals(CFB_SIGNATURE)) return null;
  const sectorShift = bytes.readUInt16LE(0x1e);
  if (sectorShift !== 9 && sectorShift !== 12) return null;
  const sectorSize = 1 << sectorShift;
  const sectorOffset = (sector: number) => (sector + 1) * sectorSize;
  const fat: number[] = [];
  for (let i = 0; i < 109; i++) {
    const fatSector = bytes.readUInt32LE(0x4c + i * 4);
    if (fatSector === FREE_SECT || fatSector === END_OF_CHAIN) break;
    const start = sectorOffset(fatSector);
    if (start + sectorSize > bytes.length) return null;
    for (let j = 0; j < sectorSize; j += 4) fat.push(bytes.readUInt32LE(start + j));
  }
  const names: string[] = [];
  const visited = new Set<number>();
  for (let sector = bytes.readUInt32LE(0x30); sector !== END_OF_CHAIN; sector = fat[sector]) {
    if (sector === undefined || visited.has(sector) || sector >= fat.length) return null;
    visited.add(sector);
    const start = sectorOffset(sector);
    if (start + sectorSize > bytes.length) return null;
    for (let entry = start; entry < start + sectorSize; entry += 128) {
      const nameBytes = bytes.readUInt16LE(entry + 64);
      const type = bytes[entry + 66];
      if (type === 0 || nameBytes < 2 || nameBytes > 64) continue;
      names.push(bytes.toString('utf16le', entry, entry + nameBytes - 2));
    }
  }
  return names;
}

/** The directory entry that marks a Word (.doc) or Excel (.xls) compound file. */
export function compoundFileKind(bytes: Buffer): 'doc' | 'xls' | 'other' | null {
  const names = compoundFileEntryNames(bytes);
  if (names === null) return null;
  if (names.includes('WordDocument')) return 'doc';
  if (names.includes('Workbook') || names.includes('Book')) return 'xls';
  return 'other';
}
