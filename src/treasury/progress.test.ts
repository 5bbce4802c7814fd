// The one progress view: the sentence and the cards say the same numbers, the phase never
// contradicts them, and amounts are token units with their token.
import { describe, expect, test } from "bun:test";
import { progressCards, progressText, tokenAmount, treasuryProgress, type TreasuryProgress } from "./progress";

const orders = (o: Partial<TreasuryProgress["orders"]> = {}) => ({ submitted: 0, broadcasted: 0, confirmed: 0, failed: 0, ...o });

describe("treasury progress", () => {
  const cases: Array<{ name: string; p: TreasuryProgress; text: string; phase: TreasuryProgress["phase"]; cards: Record<string, number> }> = [
    {
      name: "a batch creating its orders: 0 submitted and 20 waiting, in the sentence and in the cards",
      p: treasuryProgress("running", 20, 20, orders(), { rejected: 0 }),
      text: "In progress (creating orders): 0 confirmed, 0 broadcast, 0 submitted, 20 waiting to be created.",
      phase: "creating orders",
      cards: { Rows: 20, Submitted: 0, "Waiting to be created": 20, Confirmed: 0 },
    },
    {
      name: "a run whose orders are all created but 3 still broadcast is sending, not done",
      p: treasuryProgress("done", 5, 0, orders({ confirmed: 2, broadcasted: 3 }), { rejected: 0 }),
      text: "In progress (sending): 2 confirmed, 3 broadcast, 0 submitted, 0 waiting to be created.",
      phase: "sending",
      cards: { Rows: 5, Broadcast: 3, Confirmed: 2 },
    },
    {
      name: "finished: every order final",
      p: treasuryProgress("done", 200, 0, orders({ confirmed: 195 }), { rejected: 0, invalid: 5 }),
      text: "Finished: 195 confirmed, 0 failed, 0 refused, 5 rows with errors.",
      phase: "finished",
      cards: { Rows: 200, Confirmed: 195, "Rows with errors": 5 },
    },
    {
      name: "a preview is neither in progress nor finished",
      p: treasuryProgress("preview", 4, 0, orders(), { rejected: 0 }),
      text: "In progress (preview): 0 confirmed, 0 broadcast, 0 submitted, 0 waiting to be created.",
      phase: "preview",
      cards: { Rows: 4 },
    },
  ];
  test.each(cases.map((c) => [c.name, c] as const))("%s", (_, c) => {
    expect(progressText(c.p)).toBe(c.text);
    expect(c.p.phase).toBe(c.phase);
    const cards = Object.fromEntries(progressCards(c.p, { itemLabel: "Rows" }));
    expect(cards).toMatchObject(c.cards);
    // The cards add up to the items: nothing counted twice, nothing left out.
    const accounted = cards.Confirmed! + cards.Broadcast! + cards.Submitted! + cards["Waiting to be created"]! + cards.Failed! + cards["Refused at creation"]! + (cards["Rows with errors"] ?? 0);
    if (c.p.status !== "preview") expect(accounted).toBe(c.p.items);
  });

  test("amounts are token units with their token, never base units", () => {
    expect(tokenAmount("TRON", "USDT", 356100000n)).toBe("356.10 USDT");
    expect(tokenAmount("BSC", "USDC", "171150000000000000000")).toBe("171.15 USDC");
    expect(tokenAmount("SOL", "USDC", "1", 6)).toBe("0.000001 USDC");
  });
});
