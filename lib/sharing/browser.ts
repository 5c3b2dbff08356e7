// The browser's own ports for a page on a share link: fetch to the origin the
// page came from, and EventSource for the live stream.
import { shareClient, type ShareClient } from "./client";
import type { OpenEvents } from "./remote-source";

export const pageShareClient = (token: string): ShareClient => shareClient((input, init) => fetch(input, init), token);

export const pageEvents: OpenEvents = (url) => new EventSource(url);
