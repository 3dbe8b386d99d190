import { connect, type Socket } from 'node:net';

/** Raw HTTP over a socket, for what Node answers before Express (timeouts, parser errors, slots). */

/** Opens a socket, writes `data`, and resolves with all it reads until the server closes it. */
export function exchange(
  target: { host: string; port: number },
  data: string,
  keepOpenMs = 0,
  localAddress?: string,
): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket: Socket = connect({ port: target.port, host: target.host, localAddress }, () => {
      socket.write(data);
      if (keepOpenMs > 0) setTimeout(() => socket.end(), keepOpenMs).unref();
    });
    let text = '';
    socket.setEncoding('latin1');
    socket.on('data', (d: string) => {
      text += d;
    });
    socket.on('close', () => resolve(text));
    socket.on('error', reject);
  });
}
