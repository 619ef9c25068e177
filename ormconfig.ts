import 'reflect-metadata';
import { DataSource } from 'typeorm';
import { loadConfig } from './src/config/app-config';
import { buildDataSourceOptions } from './src/database/data-source-options';

/** TypeORM CLI entry (`npm run migration:run`): same options as the app, from the same env. */
export default new DataSource(buildDataSourceOptions(loadConfig(process.env).database));
