import { TestSuite } from '../../support/suite';

/** Runs one benchmark in its own database and Redis prefix, cleans up, and exits non-zero on failure. */
export function benchmark(name: string, body: (suite: TestSuite) => Promise<void>): void {
  const run = async () => {
    const suite = await TestSuite.create(name);
    try {
      await body(suite);
    } finally {
      await suite.destroy();
    }
  };
  run().catch((error: unknown) => {
    console.error(error);
    process.exit(1);
  });
}
