// The workspace's flat list of paths as a tree, and the rows of it that are
// on screen given which directories are open. Pure, for the Files view.
import type { WorkspaceEntry } from "@/lib/store/minds/files";

export interface TreeNode {
  name: string;
  path: string;
  kind: WorkspaceEntry["kind"];
  size: number;
  target?: string;
  children: TreeNode[];
}

/** What is on screen, in order, with what keyboard navigation needs. */
export interface VisibleRow {
  node: TreeNode;
  level: number;
  parent: string | null;
  /** Position among its siblings, from 1, and how many they are (aria-posinset / aria-setsize). */
  pos: number;
  of: number;
}

const parentOf = (path: string) => path.slice(0, path.lastIndexOf("/")) || "/";

/** Directories first, then by name; a directory the rows do not list (its parent of a saved path) is made up. */
export function buildTree(entries: readonly WorkspaceEntry[]): TreeNode[] {
  const nodes = new Map<string, TreeNode>();
  const root: TreeNode = { name: "", path: "/", kind: "dir", size: 0, children: [] };
  nodes.set("/", root);
  const nodeFor = (path: string): TreeNode => {
    const known = nodes.get(path);
    if (known) return known;
    const node: TreeNode = { name: path.slice(path.lastIndexOf("/") + 1), path, kind: "dir", size: 0, children: [] };
    nodes.set(path, node);
    nodeFor(parentOf(path)).children.push(node);
    return node;
  };
  for (const e of entries) {
    if (e.path === "/") continue;
    const node = nodeFor(e.path);
    node.kind = e.kind;
    node.size = e.size;
    if (e.target !== undefined) node.target = e.target;
  }
  const sort = (n: TreeNode) => {
    n.children.sort((a, b) => Number(b.kind === "dir") - Number(a.kind === "dir") || a.name.localeCompare(b.name));
    n.children.forEach(sort);
  };
  sort(root);
  return root.children;
}

export function visibleRows(roots: readonly TreeNode[], open: ReadonlySet<string>): VisibleRow[] {
  const rows: VisibleRow[] = [];
  const walk = (nodes: readonly TreeNode[], level: number, parent: string | null) => {
    nodes.forEach((node, i) => {
      rows.push({ node, level, parent, pos: i + 1, of: nodes.length });
      if (node.kind === "dir" && open.has(node.path)) walk(node.children, level + 1, node.path);
    });
  };
  walk(roots, 1, null);
  return rows;
}
