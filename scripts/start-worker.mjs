// `npm run start:worker`: a worker process of its own (background jobs; scale it apart from the API), built if needed.
import { ensureBuilt } from './ensure-build.mjs';
import { runServiceProcess } from './service-process.mjs';

runServiceProcess(ensureBuilt(), 'dist/apps/worker/src/main.js');
