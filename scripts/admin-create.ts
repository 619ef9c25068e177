import 'reflect-metadata';
import { User } from '../src/auth/users/user.entity';
import { UsersService } from '../src/auth/users/users.service';
import { generatedPassword } from '../src/bootstrap/generated-password';
import { ConfigError, loadConfig } from '../src/config/app-config';
import { buildDataSourceOptions } from '../src/database/data-source-options';
import { openDataSource } from '../src/database/open-data-source';
import { UnitOfWork } from '../src/database/unit-of-work';

/** Refused: the username is taken (an existing admin is never changed from here). */
class UsernameTaken extends Error {}

/**
 * `npm run admin:create`: creates an admin user on the configured database (applying pending
 * migrations first, as a start does), e.g. the first admin of an empty MySQL database. The name is
 * ADMIN_USERNAME or `admin`; the password ADMIN_PASSWORD (both set, as for the service) or a
 * generated one, printed once. A taken username is refused, never changed.
 */
async function main(): Promise<void> {
  const config = loadConfig(process.env);
  const username = config.adminUsername ?? 'admin';
  const password = config.adminPassword ?? generatedPassword();
  const dataSource = await openDataSource(buildDataSourceOptions(config.database));
  try {
    const users = new UsersService(dataSource.getRepository(User), new UnitOfWork(dataSource, config));
    if (await dataSource.getRepository(User).existsBy({ username })) {
      throw new UsernameTaken(
        `A user named "${username}" already exists: nothing changed. Choose another name with ADMIN_USERNAME ` +
          '(and ADMIN_PASSWORD), or change that user in the admin console.',
      );
    }
    await users.create({ username, password, isAdmin: true });
    process.stdout.write(
      config.adminPassword
        ? `Admin user "${username}" created with the password in ADMIN_PASSWORD.\n`
        : `Admin user "${username}" created. Its password (shown only this once): ${password}\n`,
    );
  } finally {
    await dataSource.destroy();
  }
}

main().catch((error: unknown) => {
  const known = error instanceof ConfigError || error instanceof UsernameTaken;
  process.stderr.write(`${known ? error.message : String((error as Error).message ?? error)}\n`);
  process.exit(1);
});
