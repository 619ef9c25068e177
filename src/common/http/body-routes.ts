import { Delete as NestDelete, Patch as NestPatch, Post as NestPost, Put as NestPut } from '@nestjs/common';
import { INTERCEPTORS_METADATA } from '@nestjs/common/constants';
import { BodyReadingInterceptor } from './body-reading.interceptor';

/**
 * The route reads its request body: {@link BodyReadingInterceptor} runs FIRST among the route's
 * interceptors (after every guard: contract §3), whatever order the decorators are written in.
 * Only routes of a method with a body get it, so a GET pays for no interceptor at all: Nest skips its
 * rxjs chain for a route without one (docs/performance.md).
 */
export const ReadsBody = (): MethodDecorator => (_target, _key, descriptor) => {
  const handler = descriptor.value as object;
  const own = (Reflect.getMetadata(INTERCEPTORS_METADATA, handler) as unknown[] | undefined) ?? [];
  if (!own.includes(BodyReadingInterceptor)) {
    Reflect.defineMetadata(INTERCEPTORS_METADATA, [BodyReadingInterceptor, ...own], handler);
  }
  return descriptor;
};

const withBody =
  (route: (path?: string | string[]) => MethodDecorator) =>
  (path?: string | string[]): MethodDecorator =>
  (target, key, descriptor) => {
    route(path)(target, key, descriptor);
    ReadsBody()(target, key, descriptor);
  };

/**
 * Nest's route decorators for the methods with a body, each with {@link ReadsBody}. Controllers use
 * these instead of `@nestjs/common`'s (eslint refuses those), so no body route is left unread.
 */
export const Post = withBody(NestPost);
export const Put = withBody(NestPut);
export const Patch = withBody(NestPatch);
export const Delete = withBody(NestDelete);
