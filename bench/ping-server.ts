// The reference of `npm run bench`: a bare NestJS + Express app answering `GET /ping` with a small
// JSON body: the framework's own floor on this machine, measured in the same run as the service.
// `node dist/bench/ping-server.js` with PORT.
import 'reflect-metadata';
import { Controller, Get, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';

@Controller()
class PingController {
  @Get('ping')
  ping(): { ok: boolean } {
    return { ok: true };
  }
}

@Module({ controllers: [PingController] })
class PingModule {}

async function main(): Promise<void> {
  const app = await NestFactory.create(PingModule, { logger: false });
  app.enableShutdownHooks();
  await app.listen(Number(process.env.PORT), '127.0.0.1');
}

void main();
