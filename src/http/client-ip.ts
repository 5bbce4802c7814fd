// The socket peer of a request, remembered by the server's fetch handler so
// routes below Elysia can read it (audit entries, login throttling records).
const peers = new WeakMap<Request, string>();

export function rememberPeer(req: Request, address: string | undefined): void {
  if (address) peers.set(req, address);
}

export function peerOf(req: Request): string | null {
  return peers.get(req) ?? null;
}
