import { Controller, Get } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiServiceUnavailableResponse, ApiTags } from '@nestjs/swagger';
import { HealthCheck, HealthCheckResult, HealthCheckService, HealthIndicatorService } from '@nestjs/terminus';
import { DetailDto } from '../common/errors/error-body.dto';
import { DatabaseHealth } from '../database/database-health';

/** Terminus' own 503 schema does not apply: the global ErrorFilter answers `{"detail"}` (contract §2). */
const PROBE = HealthCheck({ noCache: true, swaggerDocumentation: false });
const OK = ApiOkResponse({
  description: 'Healthy',
  schema: {
    type: 'object',
    properties: { status: { type: 'string', enum: ['ok'] } },
    additionalProperties: true,
  },
});

@ApiTags('Health')
@Controller('health')
export class HealthController {
  constructor(
    private readonly health: HealthCheckService,
    private readonly indicators: HealthIndicatorService,
    private readonly database: DatabaseHealth,
  ) {}

  /** Liveness is about the process only: a database outage must not get replicas restarted. */
  @Get()
  @PROBE
  @OK
  @ApiOperation({ summary: 'Liveness: the process answers', operationId: 'liveness' })
  live(): Promise<HealthCheckResult> {
    return this.health.check([]);
  }

  @Get('ready')
  @PROBE
  @ApiOperation({
    summary: 'Readiness: a database answers and requests get connections',
    operationId: 'readiness',
  })
  @OK
  @ApiServiceUnavailableResponse({
    type: DetailDto,
    description: 'No database answers, or requests are waiting too long for a connection',
  })
  ready(): Promise<HealthCheckResult> {
    return this.health.check([
      async () => {
        // Public probe: the reason only, never hosts or errors (those are in the logs).
        const session = this.indicators.check('database');
        const { up, reason } = await this.database.check();
        return up ? session.up() : session.down({ reason });
      },
    ]);
  }
}
