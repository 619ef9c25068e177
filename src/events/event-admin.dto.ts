import { ApiProperty } from '@nestjs/swagger';
import { DELIVERY_CHANNELS, DELIVERY_STATUSES } from './delivery.entity';
import { EVENT_NAMES } from './event-types';

export class DeliveryAttemptDto {
  @ApiProperty({ format: 'date-time' }) attempted_at: string;
  @ApiProperty({ type: Number, nullable: true, description: 'HTTP status (SMTP reply code for e-mail)' })
  status_code: number | null;
  @ApiProperty() duration_ms: number;
  @ApiProperty({ type: String, nullable: true }) error: string | null;
  @ApiProperty({ type: String, nullable: true, description: 'At most 1 KB of the answer' })
  response_body: string | null;
}

export class DeliveryDto {
  @ApiProperty() id: number;
  @ApiProperty({ enum: [...DELIVERY_CHANNELS] }) channel: string;
  @ApiProperty({ description: 'Webhook URL, e-mail address or phone number' }) target: string;
  @ApiProperty({ enum: [...DELIVERY_STATUSES] }) status: string;
  @ApiProperty() attempts: number;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) last_attempt_at: string | null;
  @ApiProperty({ type: Number, nullable: true }) last_status_code: number | null;
  @ApiProperty({ type: String, nullable: true }) last_error: string | null;
  @ApiProperty({
    type: String,
    format: 'date-time',
    nullable: true,
    description: 'When a pending delivery is tried next',
  })
  next_attempt_at: string | null;
  @ApiProperty({ type: DeliveryAttemptDto, isArray: true, description: 'Every attempt, oldest first' })
  attempt_log: DeliveryAttemptDto[];
}

export class EventDto {
  @ApiProperty({ format: 'uuid' }) event_id: string;
  @ApiProperty({ enum: [...EVENT_NAMES] }) event: string;
  @ApiProperty({ description: 'Rises by one with every event of the transaction' }) sequence: number;
  @ApiProperty({ format: 'date-time' }) created_at: string;
  @ApiProperty({ type: DeliveryDto, isArray: true }) deliveries: DeliveryDto[];
}

export class RedeliveryDto {
  @ApiProperty({ example: 'Redelivery queued.' }) detail: string;
  @ApiProperty({ description: 'The new webhook delivery' }) delivery_id: number;
}
