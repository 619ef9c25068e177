import { Controller, Get, Param, Res } from '@nestjs/common';
import { ApiFoundResponse, ApiNotFoundResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { NotFound } from '../common/errors/domain-errors';
import { DetailDto } from '../common/errors/error-body.dto';
import { ShortLinksService } from './short-links.service';

@ApiTags('Short links')
@Controller('s')
export class ShortLinksController {
  constructor(private readonly shortLinks: ShortLinksService) {}

  @Get(':code')
  @ApiOperation({
    summary: 'Follow a short link (302 to its target)',
    operationId: 'followShortLink',
    security: [],
  })
  @ApiParam({ name: 'code', description: 'Base62 code, at least 7 characters' })
  @ApiFoundResponse({ description: 'Redirects to the target (header `Location`)' })
  @ApiNotFoundResponse({ type: DetailDto })
  async follow(@Param('code') code: string, @Res() res: Response): Promise<void> {
    const target = await this.shortLinks.resolve(code);
    if (!target) throw new NotFound();
    res.setHeader('Cache-Control', 'no-store');
    res.status(302).location(target).end();
  }
}
