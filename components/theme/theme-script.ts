// The few lines that run in <head> before the first paint, so a page never
// flashes the wrong theme: the stored choice (or the system's preference)
// becomes the `dark` class and the `data-theme` choice on <html>. globals.css
// derives `color-scheme` from the class. Kept as a string because it must run
// before any bundle loads; theme-store.ts applies the same rules live.
import { DARK_QUERY, THEME_STORAGE_KEY } from "./theme";

export const THEME_SCRIPT = `(function(){var c="system";try{var s=localStorage.getItem(${JSON.stringify(THEME_STORAGE_KEY)});if(s==="light"||s==="dark")c=s}catch(e){}var d=c==="dark"||(c==="system"&&window.matchMedia(${JSON.stringify(DARK_QUERY)}).matches);var r=document.documentElement;r.classList.toggle("dark",d);r.dataset.theme=c})();`;
