// The script bursting runs in a lead broker's pod, a file of this folder (linted with shellcheck).
import { packagedFiles } from '../../flux/packaged-files.ts';

export const BURST_SCRIPTS = packagedFiles(import.meta.url, ['flux-queue.sh']);
