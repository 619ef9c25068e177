import { Controller, Get, Param, Res, StreamableFile } from '@nestjs/common';
import { ApiNotFoundResponse, ApiOkResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { NotFound } from '../common/errors/domain-errors';
import { DetailDto } from '../common/errors/error-body.dto';
import { ATTACHMENT_TYPES } from './attachment-files';
import { AttachmentsService } from './attachments.service';

/** Serves attachment bytes at their unguessable URL (contract §12); public, like retrieve. */
@ApiTags('Attachments')
@Controller('b/checkout/attachments')
export class AttachmentsController {
  constructor(private readonly attachments: AttachmentsService) {}

  @Get(':file')
  @ApiOperation({
    summary: 'Download a transaction attachment (public)',
    operationId: 'downloadAttachment',
    security: [],
  })
  @ApiParam({
    name: 'file',
    description: 'The last segment of the `attachment` URL: an unguessable token and the extension',
    example: 'gwqKBNjrDUne5uh3ekjgxuZx07aL107WeQ6m9KQTusI.pdf',
  })
  @ApiOkResponse({
    description: 'The file, as `Content-Disposition: attachment`',
    // Each file type the service stores; the 404 stays JSON (so no @ApiProduces for the operation).
    content: Object.fromEntries(
      [...new Set(Object.values(ATTACHMENT_TYPES))].map((type) => [
        type,
        { schema: { type: 'string', format: 'binary' } },
      ]),
    ),
  })
  @ApiNotFoundResponse({ type: DetailDto })
  async download(
    @Param('file') file: string,
    @Res({ passthrough: true }) res: Response,
  ): Promise<StreamableFile> {
    const found = await this.attachments.open(file);
    if (!found) throw new NotFound();
    res.setHeader('X-Content-Type-Options', 'nosniff');
    res.setHeader('Cache-Control', 'private, no-store');
    res.setHeader('Content-Security-Policy', "default-src 'none'; sandbox");
    res.attachment(found.attachment.fileName);
    res.setHeader('Content-Type', found.attachment.contentType);
    return new StreamableFile(found.stream, { length: found.size });
  }
}
