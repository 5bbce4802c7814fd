// Calls the /sandbox endpoints of a running gateway.
export function sandboxClient(baseUrl: string) {
  const post = async <T = Record<string, unknown>>(path: string, body: unknown): Promise<T> => {
    const res = await fetch(baseUrl + "/sandbox" + path, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
    const json = (await res.json()) as T;
    if (!res.ok) throw new Error(`sandbox ${path} ${res.status}: ${JSON.stringify(json)}`);
    return json;
  };
  return {
    transfer: (b: { chainCode: string; tokenSymbol: string; toAddress: string; amount: string; fromAddress?: string }) =>
      post<{ txHash: string; blockNumber: number }>("/transfers", b),
    mine: (chainCode: string, count: number) => post<{ blockNumber: number }>("/blocks", { chainCode, count }),
    reorg: (chainCode: string, depth: number) => post<{ blockNumber: number }>("/reorg", { chainCode, depth }),
    faults: (chainCode: string, failNextBroadcasts: number) => post("/faults", { chainCode, failNextBroadcasts }),
    raw: (path: string, body: unknown) => fetch(baseUrl + "/sandbox" + path, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) }),
  };
}
