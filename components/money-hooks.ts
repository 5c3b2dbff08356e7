"use client";
// What the forms and the mind's page need to know about money: whether this
// host offers its proxy (and its models and prices), this browser's price
// table, and what a mind spent.
import { useLiveQuery } from "dexie-react-hooks";
import { useEffect, useState } from "react";
import type { PriceTable } from "@/lib/llm/price";
import { discoverProxy, type ProxyOffer } from "@/lib/llm/proxy";
import { db } from "@/lib/store/db";
import { getPriceTable } from "@/lib/store/prices";
import { spendSummary, type SpendSummary } from "@/lib/store/usage";

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
  return useLiveQuery(() => getPriceTable(db()), []);
}

/** Refreshed on every new usage row, and every 10 s as the hour's window moves on. */
export function useSpend(mindId: string): SpendSummary | undefined {
  const [tick, setTick] = useState(() => Date.now());
  useEffect(() => {
    const t = setInterval(() => setTick(Date.now()), 10_000);
    return () => clearInterval(t);
  }, []);
  return useLiveQuery(() => spendSummary(db(), mindId, Date.now()), [mindId, tick]);
}
