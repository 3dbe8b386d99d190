// HEALTHCHECK: the image has no curl or shell, so Node asks the fake's health endpoint itself.
// Exit 0 healthy (200 from /__admin/health on PORT), 1 otherwise.
//
// Engines run a check `interval` after the container starts and `interval` after each check ends,
// and not every engine honours --start-interval (podman 4 does not; Docker before 25 neither), so
// one interval has to serve both the start, where it should be short, and the days after, where
// every check (an exec plus a Node start) is a cost. This check therefore paces itself by the
// container's age (the uptime of its PID 1):
// - while it is young (under START_SECONDS, the HEALTHCHECK's start period), a refused connection
//   is tried again every 50 ms for up to 2.5 s, so a check that begins just before the server
//   listens reports healthy as soon as it answers, not a whole interval later;
// - after that, it first waits PACE_SECONDS, then asks once: with the Dockerfile's 0.5 s interval
//   a check then runs about every 3 s instead of twice a second (the 5 retries keep the same 15 s
//   of tolerance as before), and each result is fresh when reported.
// It asks with `node:http`: on Node 20 (docker/package.Dockerfile can be built on it) the first
// `fetch` loads and compiles undici, about three times the cost of this whole check.
import { readFileSync } from 'node:fs';
import { get } from 'node:http';

const PORT = process.env.PORT || '4010';
const START_SECONDS = 20;
const PACE_SECONDS = 2;
const RETRY_FOR_MS = 2500;

/** Seconds since the container's PID 1 started, or undefined when /proc cannot tell. */
function containerAge() {
  try {
    const stat = readFileSync('/proc/1/stat', 'utf8');
    // Field 22 (starttime, in clock ticks since boot), counted after the command's parenthesis.
    const startTicks = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19]);
    const uptime = Number(readFileSync('/proc/uptime', 'utf8').split(' ')[0]);
    const age = uptime - startTicks / 100; // USER_HZ is 100 on Linux
    return Number.isFinite(age) ? age : undefined;
  } catch {
    return undefined;
  }
}

const ask = () =>
  new Promise((resolve) => {
    get({ host: '127.0.0.1', port: PORT, path: '/__admin/health', timeout: 2000, agent: false }, (res) => {
      res.resume();
      resolve(res.statusCode === 200 ? 'ok' : 'bad');
    })
      .on('timeout', function onTimeout() {
        this.destroy();
        resolve('bad');
      })
      .on('error', (error) => resolve(error.code === 'ECONNREFUSED' ? 'refused' : 'bad'));
  });
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

const age = containerAge();
const starting = age === undefined || age < START_SECONDS;
if (!starting) await sleep(PACE_SECONDS * 1000);
const until = Date.now() + (starting ? RETRY_FOR_MS : 0);
let answer = await ask();
while (answer === 'refused' && Date.now() < until) {
  await sleep(50);
  answer = await ask();
}
process.exit(answer === 'ok' ? 0 : 1);
