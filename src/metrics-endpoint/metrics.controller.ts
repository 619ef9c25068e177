import { Controller, Get, Res, UseGuards } from '@nestjs/common';
import {
  ApiBasicAuth,
  ApiBearerAuth,
  ApiForbiddenResponse,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
  ApiTooManyRequestsResponse,
  ApiUnauthorizedResponse,
} from '@nestjs/swagger';
import type { Response } from 'express';
import { BASIC_SECURITY } from '../auth/authenticated.decorator';
import { DetailDto } from '../common/errors/error-body.dto';
import { METRICS_SECURITY } from './metrics-security';
import { MetricsAccessGuard } from './metrics-access.guard';
import { Metrics } from '../metrics/metrics';

@ApiTags('Operations')
@Controller('metrics')
export class MetricsController {
  constructor(private readonly metrics: Metrics) {}

  @Get()
  @UseGuards(MetricsAccessGuard)
  @ApiOperation({
    summary: 'Prometheus metrics of this replica',
    description:
      'HTTP durations by route and status, DB pool in use/waiting, unit-of-work retries, outbox backlog and oldest pending age per channel, delivery results, expiry sweeps, state transitions, and the process (contract §18).',
    operationId: 'metrics',
  })
  @ApiBasicAuth(BASIC_SECURITY)
  @ApiBearerAuth(METRICS_SECURITY)
  @ApiOkResponse({
    description: 'Prometheus text exposition format 0.0.4',
    content: { 'text/plain': { schema: { type: 'string' } } },
  })
  @ApiUnauthorizedResponse({ type: DetailDto, description: 'No or bad credentials' })
  @ApiForbiddenResponse({ type: DetailDto, description: 'The user is not an admin' })
  @ApiTooManyRequestsResponse({ type: DetailDto, description: 'Too many failed authentications' })
  async scrape(@Res() res: Response): Promise<void> {
    const text = await this.metrics.scrape();
    res.setHeader('Cache-Control', 'no-store');
    res.setHeader('Content-Type', this.metrics.contentType);
    res.send(text);
  }
}
