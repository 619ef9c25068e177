import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { GatewaysModule } from '../gateways/gateways.module';
import { CardAgreementUse } from './card-agreement-use.entity';
import { Card } from './card.entity';
import { CardFingerprints } from './card-fingerprints';
import { CardsController } from './cards.controller';
import { CardsRepository } from './cards.repository';
import { CardsService } from './cards.service';

/** Saved cards (contract §15): storage, fingerprints and the card API. Payments save and charge them. */
@Module({
  imports: [TypeOrmModule.forFeature([Card, CardAgreementUse]), GatewaysModule],
  controllers: [CardsController],
  providers: [CardsRepository, CardFingerprints, CardsService],
  exports: [CardsRepository, CardFingerprints],
})
export class CardsModule {}
