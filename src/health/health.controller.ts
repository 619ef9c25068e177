import { Controller, Get } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiServiceUnavailableResponse, ApiTags } from '@nestjs/swagger';
import { HealthCheck, HealthCheckResult, HealthCheckService, TypeOrmHealthIndicator } from '@nestjs/terminus';
import { DetailDto } from '../common/errors/error-body.dto';

/** Terminus' own 503 schema does not apply: the global ErrorFilter answers `{"detail"}` (SPEC §2). */
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
    private readonly db: TypeOrmHealthIndicator,
  ) {}

  @Get()
  @PROBE
  @OK
  @ApiOperation({ summary: 'Liveness: the process answers', operationId: 'liveness' })
  live(): Promise<HealthCheckResult> {
    return this.health.check([]);
  }

  @Get('ready')
  @PROBE
  @ApiOperation({ summary: 'Readiness: the database answers', operationId: 'readiness' })
  @OK
  @ApiServiceUnavailableResponse({ type: DetailDto, description: 'The database does not answer' })
  ready(): Promise<HealthCheckResult> {
    return this.health.check([() => this.db.pingCheck('database', { timeout: 3000 })]);
  }
}
