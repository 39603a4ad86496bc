// Runs the tests record_actions exported (written into ./flows by tests/record) against the
// system's Chromium, headless: no browser is downloaded.
import { defineConfig } from "@playwright/test";

export default defineConfig({
  testDir: process.env.GHOSTLIGHT_FLOWS || "./flows",
  timeout: 30_000,
  expect: { timeout: 5_000 },
  reporter: "list",
  retries: 0,
  workers: 1,
  use: {
    headless: true,
    launchOptions: {
      executablePath: process.env.GHOSTLIGHT_CHROMIUM || "/usr/bin/chromium",
      args: ["--no-sandbox"],
    },
  },
});
