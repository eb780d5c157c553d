import { extractHelm } from './helm';

/** Jest global set-up of the packaging tests: the helm binary they run. */
export default function helmSetup(): void {
  extractHelm();
}
