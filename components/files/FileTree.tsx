"use client";
// The workspace as an ARIA tree: one tab stop (the focused item), arrows to
// move and to open or close directories, Enter to open a file or toggle a
// directory, Home and End to jump.
import { useEffect, useMemo, useRef, type KeyboardEvent, type MouseEvent } from "react";
import { sizeText } from "./file-text";
import { visibleRows, type TreeNode, type VisibleRow } from "./tree";

export interface FileTreeProps {
  roots: readonly TreeNode[];
  open: ReadonlySet<string>;
  onToggle: (path: string) => void;
  focused: string | null;
  onFocus: (path: string) => void;
  selected: string | null;
  onSelect: (path: string) => void;
}

export function FileTree(props: FileTreeProps) {
  const { roots, open, focused, onFocus, onToggle, onSelect } = props;
  const rows = useMemo(() => visibleRows(roots, open), [roots, open]);
  const tree = useRef<HTMLUListElement>(null);
  // The tab stop: the focused row if it is on screen, else the first.
  const current = rows.find((r) => r.node.path === focused) ?? rows[0];
  // Move the browser's focus with the tree's, but only while the focus is in the tree.
  const moved = useRef(false);
  useEffect(() => {
    if (!moved.current || !current) return;
    moved.current = false;
    tree.current?.querySelector<HTMLElement>(`[data-path="${CSS.escape(current.node.path)}"]`)?.focus();
  }, [current]);

  const activate = (row: VisibleRow) => (row.node.kind === "dir" ? onToggle(row.node.path) : onSelect(row.node.path));

  const onKeyDown = (e: KeyboardEvent<HTMLUListElement>) => {
    if (!current) return;
    const at = rows.indexOf(current);
    const go = (row: VisibleRow | undefined) => {
      if (!row) return;
      moved.current = true;
      onFocus(row.node.path);
    };
    const isOpenDir = current.node.kind === "dir" && open.has(current.node.path);
    switch (e.key) {
      case "ArrowDown":
        go(rows[at + 1]);
        break;
      case "ArrowUp":
        go(rows[at - 1]);
        break;
      case "Home":
        go(rows[0]);
        break;
      case "End":
        go(rows[rows.length - 1]);
        break;
      case "ArrowRight":
        if (current.node.kind !== "dir") return;
        if (!isOpenDir) onToggle(current.node.path);
        else if (current.node.children.length) go(rows[at + 1]);
        break;
      case "ArrowLeft":
        if (isOpenDir) onToggle(current.node.path);
        else go(rows.find((r) => r.node.path === current.parent));
        break;
      case "Enter":
      case " ":
        activate(current);
        break;
      default:
        return;
    }
    e.preventDefault();
  };

  // Nested items are inside their parent's <li>: act only for the innermost one clicked.
  const onClick = (e: MouseEvent<HTMLElement>, row: VisibleRow) => {
    if ((e.target as Element).closest('[role="treeitem"]') !== e.currentTarget) return;
    onFocus(row.node.path);
    activate(row);
  };

  const rowOf = useMemo(() => new Map(rows.map((r) => [r.node.path, r])), [rows]);
  const renderLevel = (nodes: readonly TreeNode[]) =>
    nodes.map((node) => {
      const row = rowOf.get(node.path);
      if (!row) return null;
      const isDir = node.kind === "dir";
      const expanded = isDir ? open.has(node.path) : undefined;
      return (
        <li
          key={node.path}
          role="treeitem"
          data-testid="file-item"
          data-path={node.path}
          data-kind={node.kind}
          aria-level={row.level}
          aria-posinset={row.pos}
          aria-setsize={row.of}
          aria-expanded={expanded}
          aria-selected={node.path === props.selected}
          tabIndex={row === current ? 0 : -1}
          onClick={(e) => onClick(e, row)}
          onFocus={(e) => e.target === e.currentTarget && node.path !== focused && onFocus(node.path)}
          className="cursor-pointer rounded focus:outline-none [&:focus-visible>div]:ring-2 [&:focus-visible>div]:ring-indigo-400"
        >
          <div
            className={`flex items-baseline gap-1 truncate rounded px-1 text-sm hover:bg-stone-100 dark:hover:bg-stone-900 ${node.path === props.selected ? "bg-indigo-100 font-medium dark:bg-indigo-950" : ""}`}
            style={{ paddingLeft: `${0.25 + (row.level - 1) * 0.9}rem` }}
          >
            <span aria-hidden className="w-3 shrink-0 text-stone-600 dark:text-stone-400">
              {isDir ? (expanded ? "▾" : "▸") : ""}
            </span>
            <span className="truncate">{node.name}</span>
            {node.kind === "symlink" && <span className="text-xs text-stone-600 dark:text-stone-400">→ {node.target}</span>}
            {node.kind === "file" && <span className="ml-auto shrink-0 text-xs text-stone-600 dark:text-stone-400">{sizeText(node.size)}</span>}
          </div>
          {expanded && node.children.length > 0 && <ul role="group">{renderLevel(node.children)}</ul>}
        </li>
      );
    });

  return (
    <ul ref={tree} role="tree" aria-label="Workspace files" data-testid="files-tree" onKeyDown={onKeyDown} className="min-w-0">
      {renderLevel(roots)}
    </ul>
  );
}
