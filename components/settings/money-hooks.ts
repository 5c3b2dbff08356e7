"use client";
// What the forms and the mind's page need to know about money: whether this
// host offers its proxy (and its models and prices), this browser's price
// table, and what a mind spent.
import { useObservable } from "dexie-react-hooks";
import { useEffect, useState } from "react";
import type { PriceTable } from "@/lib/llm/price";
import { discoverProxy, type ProxyOffer } from "@/lib/llm/proxy";
import { db } from "@/lib/store/db/db";
import { getPriceTable } from "@/lib/store/minds/prices";
import { watchTables } from "@/lib/store/db/watch";
import { spendSummary, type SpendSummary } from "@/lib/store/derived/usage";

/** undefined while the host is asked; then whether its proxy is there. */
export function useProxyOffer(): ProxyOffer | undefined {
  const [offer, setOffer] = useState<ProxyOffer>();
  useEffect(() => {
    let live = true;
    void discoverProxy(window.location.origin).then((o) => live && setOffer(o));
    return () => {
      live = false;
    };
  }, []);
  return offer;
}

export function usePriceTable(): PriceTable | undefined {
  return useObservable(() => watchTables(db(), ["settings"], () => getPriceTable(db())), []);
}

/**
 * Read every 2 s, not on every new usage row: a mind on a fast model writes
 * tens of rows a second, and a page that re-read the day's rows on each would
 * compete with the mind's own writes.
 */
export function useSpend(mindId: string): SpendSummary | undefined {
  const [spend, setSpend] = useState<SpendSummary>();
  useEffect(() => {
    let live = true;
    const read = () => void spendSummary(db(), mindId, Date.now()).then((s) => live && setSpend(s), () => undefined);
    read();
    const t = setInterval(read, SPEND_REFRESH_MS);
    return () => {
      live = false;
      clearInterval(t);
    };
  }, [mindId]);
  return spend;
}

const SPEND_REFRESH_MS = 2000;
