// A TON chain for tests (DESIGN 23): @ton/sandbox runs the real TVM with Tether's USDT jetton
// master placed at its mainnet address and the real jetton wallet code as a library cell (as on
// mainnet; fixtures in src/testing/ton/, README there), behind a local HTTP server answering
// the toncenter v3 calls the TON adapter makes. Each message sent through the node is one
// masterchain block holding every transaction it caused; `mine(n)` adds empty blocks.
// Answers use toncenter's shapes: raw upper-case addresses, base64 hashes and BOCs.
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { Address, beginCell, Cell, contractAddress, Dictionary, loadMessage, storeMessage, toNano, type Message, type Transaction, type TupleItem } from "@ton/core";
import { Blockchain, createShardAccount, internal, type SandboxContract, type TreasuryContract } from "@ton/sandbox";
import { TON_USDT_MASTER } from "../chains/ton";

const fixture = (name: string) => Cell.fromBoc(Buffer.from(JSON.parse(readFileSync(join(import.meta.dir, "ton", name), "utf8")).hex, "hex"))[0]!;
/** Tether's USDT jetton wallet code (ton-blockchain/stablecoin-contract), hash 8f452d7a…: mainnet's USDT wallets run it as a library. */
export const JETTON_WALLET_CODE = fixture("JettonWallet.compiled.json");
export const JETTON_MINTER_CODE = fixture("JettonMinter.compiled.json");
const OP_MINT = 0x642b7d07;
const OP_INTERNAL_TRANSFER = 0x178d4519;

interface Block {
  seqno: number;
  time: number;
  hash: Buffer;
  txs: Transaction[];
}

const raw = (a: Address) => a.toRawString().toUpperCase();
/** A USDT-style minter's data: supply 0, admin, no next admin, wallet code, metadata URI (mainnet's layout). */
const minterData = (admin: Address, walletCode: Cell, uri: string) =>
  beginCell().storeCoins(0).storeAddress(admin).storeAddress(null).storeRef(walletCode).storeRef(beginCell().storeStringTail(uri).endCell()).endCell();
const rawOfBig = (n: bigint, wc = 0) => `${wc}:${n.toString(16).padStart(64, "0").toUpperCase()}`;

function msgJson(m: Message | undefined | null) {
  if (!m) return null;
  const body = m.body;
  const src = m.info.src && Address.isAddress(m.info.src) ? raw(m.info.src) : null;
  const dest = m.info.dest && Address.isAddress(m.info.dest) ? raw(m.info.dest) : null;
  const s = body.beginParse();
  const opcode = s.remainingBits >= 32 ? "0x" + s.loadUint(32).toString(16).padStart(8, "0") : null;
  return {
    hash: beginCell().store(storeMessage(m)).endCell().hash().toString("base64"),
    source: src,
    destination: dest,
    value: m.info.type === "internal" ? m.info.value.coins.toString() : null,
    fwd_fee: m.info.type === "internal" ? m.info.forwardFee.toString() : null,
    opcode,
    bounced: m.info.type === "internal" ? m.info.bounced : null,
    message_content: { body: body.toBoc().toString("base64") },
  };
}

function txJson(t: Transaction, seqno: number) {
  const d = t.description;
  const compute = d.type === "generic" ? d.computePhase : undefined;
  return {
    account: rawOfBig(t.address),
    hash: t.hash().toString("base64"),
    lt: t.lt.toString(),
    now: t.now,
    mc_block_seqno: seqno,
    total_fees: t.totalFees.coins.toString(),
    description: {
      aborted: d.type === "generic" ? d.aborted : false,
      compute_ph: compute ? (compute.type === "skipped" ? { skipped: true } : { success: compute.success, exit_code: compute.exitCode }) : undefined,
      action: d.type === "generic" && d.actionPhase ? { success: d.actionPhase.success } : undefined,
    },
    in_msg: msgJson(t.inMessage),
    out_msgs: [...t.outMessages.values()].map(msgJson),
  };
}

export class TonNode {
  readonly blocks: Block[] = [];
  private server?: ReturnType<typeof Bun.serve>;
  /** Requests by path, for the calls-per-block figures. */
  readonly calls = new Map<string, number>();
  apiKey?: string;
  /** Answers 429 to the next `n` requests. */
  throttleNext = 0;
  /** Answers 429 to every `n`th request (0: never): a rate-limited provider. */
  throttleEvery = 0;
  /** 429s answered so far. */
  injected429 = 0;
  /** On: transactionsByMasterchainBlock answers every block empty (a node that blinds the block scan). */
  hideBlockTxs = false;
  /** Off: transactions wait in `pending` until mine() seals them into the next block. */
  autoMine = true;
  private pending: Transaction[] = [];
  private served = 0;

  private constructor(
    readonly chain: Blockchain,
    readonly admin: SandboxContract<TreasuryContract>,
    readonly master: Address,
  ) {}

  static async start(opts: { apiKey?: string } = {}): Promise<TonNode> {
    const chain = await Blockchain.create();
    chain.now = Math.floor(Date.now() / 1000);
    const admin = await chain.treasury("usdt-admin");
    // The wallet code as mainnet has it: a library cell naming the code's hash, the code in the libraries.
    const libs = Dictionary.empty(Dictionary.Keys.BigUint(256), Dictionary.Values.Cell());
    libs.set(BigInt("0x" + JETTON_WALLET_CODE.hash().toString("hex")), JETTON_WALLET_CODE);
    chain.libs = beginCell().storeDictDirect(libs).endCell();
    const walletLib = new Cell({ exotic: true, bits: beginCell().storeUint(2, 8).storeBuffer(JETTON_WALLET_CODE.hash()).endCell().bits });
    const master = Address.parse(TON_USDT_MASTER);
    const data = minterData(admin.address, walletLib, "https://tether.to/usdt-ton.json");
    await chain.setShardAccount(master, createShardAccount({ address: master, code: JETTON_MINTER_CODE, data, balance: toNano("10") }));
    const node = new TonNode(chain, admin, master);
    node.admins.set(master.toRawString(), admin.address);
    node.apiKey = opts.apiKey;
    node.seal([]);
    node.listen();
    return node;
  }

  get url(): string {
    return `http://127.0.0.1:${this.server!.port}`;
  }

  get height(): number {
    return this.blocks.length - 1;
  }

  stop(): void {
    void this.server?.stop(true);
  }

  private seal(txs: Transaction[]): Block {
    const seqno = this.blocks.length;
    this.chain.now = (this.chain.now ?? 0) + 3;
    const hash = createHash("sha256").update(`mc:${seqno}:`).update(Buffer.concat(txs.map((t) => t.hash()))).digest();
    const b = { seqno, time: this.chain.now!, hash, txs };
    this.blocks.push(b);
    return b;
  }

  /** Runs a message and everything it causes; one masterchain block holds the transactions (with autoMine). */
  async run(m: Message | Cell): Promise<{ seqno: number; txs: Transaction[] }> {
    const r = await this.chain.sendMessage(m);
    if (!this.autoMine) {
      this.pending.push(...r.transactions);
      return { seqno: this.blocks.length, txs: r.transactions };
    }
    return this.seal(r.transactions);
  }

  mine(n = 1): number {
    for (let i = 0; i < n; i++) {
      this.seal(this.pending);
      this.pending = [];
    }
    return this.height;
  }

  /** The transaction in `b` where `owner` received a jetton transfer_notification (what the gateway records), hex hash. */
  static notificationTx(b: { txs: Transaction[] }, owner: Address): string | null {
    const want = BigInt("0x" + owner.hash.toString("hex"));
    const t = b.txs.find((x) => x.address === want && x.inMessage && x.inMessage.body.beginParse().remainingBits >= 32 && x.inMessage.body.beginParse().loadUint(32) === 0x7362d09c);
    return t ? t.hash().toString("hex") : null;
  }

  totalCalls(): number {
    return [...this.calls.values()].reduce((a, b) => a + b, 0);
  }

  /** TON from a funded treasury (native top-up); `bounce` false so it reaches an undeployed wallet. */
  async fund(to: Address, amount: bigint) {
    const t = await this.chain.treasury("ton-faucet");
    return this.run(internal({ from: t.address, to, value: amount, bounce: false }));
  }

  /** Mints `amount` to `owner`'s jetton wallet of `master` (USDT by default: the admin's mint, as Tether issues). */
  async mint(owner: Address, amount: bigint, master = this.master) {
    const admin = this.admins.get(master.toRawString())!;
    const transfer = beginCell().storeUint(OP_INTERNAL_TRANSFER, 32).storeUint(0, 64).storeCoins(amount).storeAddress(null).storeAddress(admin).storeCoins(0).storeMaybeRef(null).endCell();
    const body = beginCell().storeUint(OP_MINT, 32).storeUint(0, 64).storeAddress(owner).storeCoins(toNano("0.1")).storeRef(transfer).endCell();
    return this.run(internal({ from: admin, to: master, value: toNano("0.2"), body }));
  }

  async jettonWalletOf(owner: Address, master = this.master): Promise<Address> {
    const r = await this.chain.runGetMethod(master, "get_wallet_address", [{ type: "slice", cell: beginCell().storeAddress(owner).endCell() }]);
    return r.stackReader.readAddress();
  }

  async jettonBalance(owner: Address, master = this.master): Promise<bigint> {
    const w = await this.chain.getContract(await this.jettonWalletOf(owner, master));
    if (w.accountState?.type !== "active") return 0n;
    return (await this.chain.runGetMethod(w.address, "get_wallet_data")).stackReader.readBigNumber();
  }

  /**
   * A payer's jetton transfer from `payer`'s jetton wallet (holding jettons of `master`):
   * what a wallet app sends, a forward amount of 1 nanoton so the recipient is notified, and the comment.
   */
  async payJetton(payer: Address, to: Address, amount: bigint, opts: { comment?: string; master?: Address } = {}) {
    const master = opts.master ?? this.master;
    const payload = opts.comment === undefined ? null : beginCell().storeUint(0, 32).storeStringTail(opts.comment).endCell();
    const body = beginCell()
      .storeUint(0x0f8a7ea5, 32)
      .storeUint(0, 64)
      .storeCoins(amount)
      .storeAddress(to)
      .storeAddress(payer)
      .storeMaybeRef(null)
      .storeCoins(1n)
      .storeMaybeRef(payload)
      .endCell();
    return this.run(internal({ from: payer, to: await this.jettonWalletOf(payer, master), value: toNano("0.1"), body }));
  }

  /** A second jetton master running the same code: a look-alike "USDT" anyone can deploy. */
  async deployFakeMaster(): Promise<Address> {
    const admin = await this.chain.treasury(`fake-admin-${this.admins.size}`);
    const data = minterData(admin.address, JETTON_WALLET_CODE, "https://example.com/fake-usdt.json");
    const address = contractAddress(0, { code: JETTON_MINTER_CODE, data });
    await this.chain.setShardAccount(address, createShardAccount({ address, code: JETTON_MINTER_CODE, data, balance: toNano("10") }));
    this.admins.set(address.toRawString(), admin.address);
    return address;
  }

  /** The admin of each master this node placed (raw address → admin). */
  private readonly admins = new Map<string, Address>();

  mintFake(master: Address, owner: Address, amount: bigint) {
    return this.mint(owner, amount, master);
  }

  private listen(): void {
    this.server = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: (req) => this.answer(req) });
  }

  private async answer(req: Request): Promise<Response> {
    const u = new URL(req.url);
    const path = u.pathname.replace(/^\/api\/v3\//, "");
    this.calls.set(path, (this.calls.get(path) ?? 0) + 1);
    this.served++;
    if (this.throttleEvery > 0 && this.served % this.throttleEvery === 0) {
      this.injected429++;
      return Response.json({ error: "Ratelimit exceed" }, { status: 429 });
    }
    if (this.throttleNext > 0) {
      this.throttleNext--;
      this.injected429++;
      return Response.json({ error: "Ratelimit exceed" }, { status: 429 });
    }
    if (this.apiKey && req.headers.get("x-api-key") !== this.apiKey && u.searchParams.get("api_key") !== this.apiKey) return Response.json({ error: "API key does not exist" }, { status: 401 });
    const q = (k: string) => u.searchParams.get(k);
    try {
      switch (path) {
        case "masterchainInfo": {
          const last = this.blocks[this.height]!;
          return Response.json({ last: this.blockJson(last), first: this.blockJson(this.blocks[0]!) });
        }
        case "blocks": {
          const b = this.blocks[Number(q("seqno"))];
          return Response.json({ blocks: b && q("workchain") === "-1" ? [this.blockJson(b)] : [] });
        }
        case "transactionsByMasterchainBlock": {
          const b = this.blocks[Number(q("seqno"))];
          if (!b) return Response.json({ error: "block not found" }, { status: 404 });
          if (this.hideBlockTxs) return Response.json({ transactions: [], address_book: {} });
          const offset = Number(q("offset") ?? 0);
          const limit = Number(q("limit") ?? 10);
          return Response.json({ transactions: b.txs.slice(offset, offset + limit).map((t) => txJson(t, b.seqno)), address_book: {} });
        }
        case "transactions": {
          // By account and/or hash (hex or base64, as toncenter takes it), within start_utime/end_utime.
          const account = q("account") ? BigInt("0x" + Address.parse(q("account")!).hash.toString("hex")) : null;
          const hash = q("hash") ? (/^[0-9a-fA-F]{64}$/.test(q("hash")!) ? q("hash")!.toLowerCase() : Buffer.from(q("hash")!.replace(/-/g, "+").replace(/_/g, "/"), "base64").toString("hex")) : null;
          const [from, to] = [Number(q("start_utime") ?? 0), Number(q("end_utime") ?? Infinity)];
          const keep = (t: Transaction) => (account === null || t.address === account) && (hash === null || t.hash().toString("hex") === hash) && t.now >= from && t.now <= to;
          const all = this.blocks.flatMap((b) => b.txs.filter(keep).map((t) => txJson(t, b.seqno)));
          const sorted = q("sort") === "asc" ? all : all.reverse();
          const offset = Number(q("offset") ?? 0);
          return Response.json({ transactions: sorted.slice(offset, offset + Number(q("limit") ?? 10)), address_book: {} });
        }
        case "transactionsByMessage": {
          // The transaction a message (base64 or hex hash) arrived in (direction=in) or left (out).
          const h = q("msg_hash")!;
          const want = /^[0-9a-fA-F]{64}$/.test(h) ? Buffer.from(h, "hex").toString("base64") : Buffer.from(h.replace(/-/g, "+").replace(/_/g, "/"), "base64").toString("base64");
          const inbound = q("direction") !== "out";
          const found = this.blocks.flatMap((b) => b.txs.map((t) => txJson(t, b.seqno))).filter((t) => (inbound ? [t.in_msg] : t.out_msgs).some((m) => m?.hash === want));
          return Response.json({ transactions: found.slice(0, Number(q("limit") ?? 10)), address_book: {} });
        }
        case "runGetMethod": {
          const body = (await req.json()) as { address: string; method: string; stack: Array<{ type: string; value: string }> };
          const stack: TupleItem[] = body.stack.map((s) => (s.type === "num" ? { type: "int", value: BigInt(s.value) } : { type: "slice", cell: Cell.fromBase64(s.value) }));
          const r = await this.chain.runGetMethod(Address.parse(body.address), body.method, stack);
          return Response.json({ gas_used: Number(r.gasUsed), exit_code: r.exitCode, stack: r.stack.map((i) => (i.type === "int" ? { type: "num", value: "0x" + i.value.toString(16) } : i.type === "cell" || i.type === "slice" ? { type: i.type, value: i.cell.toBoc().toString("base64") } : { type: i.type, value: null })) });
        }
        case "message": {
          const body = (await req.json()) as { boc: string };
          const cell = Cell.fromBase64(body.boc);
          const m = loadMessage(cell.beginParse());
          await this.run(m);
          return Response.json({ message_hash: cell.hash().toString("base64") });
        }
        case "account":
        case "wallet":
        case "walletInformation": {
          const c = await this.chain.getContract(Address.parse(q("address")!));
          const state = c.accountState?.type ?? "uninit";
          let seqno: number | undefined;
          if (state === "active") seqno = Number((await this.chain.runGetMethod(c.address, "seqno").catch(() => null))?.stackReader.readNumber() ?? 0);
          return Response.json({ balance: c.balance.toString(), status: state === "active" ? "active" : state === "frozen" ? "frozen" : "uninit", seqno });
        }
        default:
          return Response.json({ error: `no such method: ${path}` }, { status: 404 });
      }
    } catch (e) {
      return Response.json({ error: String(e) }, { status: 500 });
    }
  }

  private blockJson(b: Block) {
    return { workchain: -1, shard: "8000000000000000", seqno: b.seqno, root_hash: b.hash.toString("base64"), gen_utime: String(b.time) };
  }
}
