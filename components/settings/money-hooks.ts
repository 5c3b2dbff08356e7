"use client";
// Whether this host offers its proxy (and its models and prices), for the
// forms. This browser's price table and what a mind spent are the store's
// (lib/store/view/hooks-settings.ts).
import { useEffect, useState } from "react";
import { discoverProxy, type ProxyOffer } from "@/lib/llm/proxy";

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
