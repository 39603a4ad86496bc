// Locations of the extension sources, resolved from this file.
import { fileURLToPath, pathToFileURL } from "node:url";
import path from "node:path";

export const EXTENSION_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../../extension");
export const lib = (name) => pathToFileURL(path.join(EXTENSION_DIR, "lib", name)).href;
