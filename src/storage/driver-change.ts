import type { DatabaseConnection, Dialect, Driver } from 'kysely';

/**
 * The dialect as it is, but each driver it creates is first handed to `change`, which may replace
 * any of its methods: how snsr adds behaviour to a Kysely driver (transactions that begin by taking
 * the write lock, notifications held until commit) without writing a dialect of its own.
 */
export function withDriver(dialect: Dialect, change: (driver: Driver) => void): Dialect {
  return {
    createAdapter: () => dialect.createAdapter(),
    createQueryCompiler: () => dialect.createQueryCompiler(),
    createIntrospector: (db) => dialect.createIntrospector(db),
    createDriver: () => {
      const driver = dialect.createDriver();
      change(driver);
      return driver;
    },
  };
}

/** Every connection the driver hands out passes through `wrap` first. */
export function wrapConnections(driver: Driver, wrap: (connection: DatabaseConnection) => DatabaseConnection): void {
  const acquire = driver.acquireConnection.bind(driver);
  driver.acquireConnection = async () => wrap(await acquire());
}
