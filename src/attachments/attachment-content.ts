import { readFile } from 'node:fs/promises';
import { fileTypeFromFile } from 'file-type';
import { AttachmentExtension, compoundFileKind } from './attachment-files';

/**
 * Whether the bytes of the file at `path` are what its extension says (contract §4: magic bytes).
 * `file-type` reads the signatures (and, for ZIP containers, the `[Content_Types].xml` / `word/`
 * / `xl/` entries that make a docx or an xlsx); legacy doc/xls are OLE2 compound files, which
 * file-type only knows as "cfb", so their directory is read for the `WordDocument` or
 * `Workbook` stream.
 */
export async function contentMatchesExtension(path: string, ext: AttachmentExtension): Promise<boolean> {
  const detected = (await fileTypeFromFile(path))?.ext;
  switch (ext) {
    case 'pdf':
    case 'png':
    case 'docx':
    case 'xlsx':
      return detected === ext;
    case 'jpg':
    case 'jpeg':
      return detected === 'jpg';
    case 'doc':
    case 'xls':
      return detected === 'cfb' && compoundFileKind(await readFile(path)) === ext;
  }
}
