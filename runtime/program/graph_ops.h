/*
 * graph_ops.h - what a program may build of graphs (streamcts.h includes it where its ops are declared):
 * launches of executable graphs, stream captures, nodes added by hand, edges, instantiation, updates and
 * edits of an executable graph.  The builders are in prog_graph_ops.c.
 */
#ifndef SC_GRAPH_OPS_H
#define SC_GRAPH_OPS_H

/* Graphs and stream capture. */
sc_op sc_graph_launch(sc_prog *p, const char *name, sc_graph g, sc_stream s);
sc_op sc_capture_begin(sc_prog *p, const char *name, sc_stream s, enum sc_capture_mode mode);
sc_op sc_capture_end(sc_prog *p, const char *name, sc_stream s);
sc_op sc_capture_status(sc_prog *p, const char *name, sc_stream s); /* getter */
/* Ends the capture of s and keeps what it recorded as the executable graph g (SC_GRAPH_CAPTURED):
 * cuStreamEndCapture + cuGraphInstantiate.  The captured ops run when g is launched (sc_graph_replay). */
sc_op sc_capture_keep(sc_prog *p, const char *name, sc_stream s, sc_graph g);
/* cuStreamBeginCaptureToGraph: s captures into g, a graph built by hand (SC_GRAPH_NODES), its first captured
 * node depending on node dep of g (an op of sc_node, sc_node_data, ...), or on none (SC_NO_NODE).  A later
 * capture_end keeps g (its captured ops run when g, instantiated, is launched); sc_capture_end_graph ends the
 * capture and gives whether cuStreamEndCapture gave back g (a getter: SC_VALUE_ITS_GRAPH, SC_VALUE_ANOTHER_GRAPH). */
#define SC_NO_NODE (-1)
sc_op sc_capture_to(sc_prog *p, const char *name, sc_stream s, sc_graph g, sc_op dep, enum sc_capture_mode mode);
sc_op sc_capture_end_graph(sc_prog *p, const char *name, sc_stream s, sc_graph g);
/* cuGraphLaunch of a graph sc_capture_keep made; observed by an event recorded after it. */
sc_op sc_graph_replay(sc_prog *p, const char *name, sc_graph g, sc_stream s);

/* graphs built by hand (a graph declared SC_GRAPH_NODES, cuGraphCreate'd before the case).
 * A node is added with no dependencies; sc_edge adds one (cuGraphAddDependencies).  A gate, kernel or
 * host node writes its own slot each time a launch runs it (sc_graph_replay of g). */
sc_op sc_node(sc_prog *p, const char *name, sc_graph g, enum sc_node_kind kind);      /* GATE, KERNEL, HOST */
sc_op sc_node_data(sc_prog *p, const char *name, sc_graph g, enum sc_node_kind kind); /* MEMSET, MEMCPY */
sc_op sc_node_event(sc_prog *p, const char *name, sc_graph g, sc_event e, enum sc_node_kind kind); /* RECORD, WAIT */
sc_op sc_node_child(sc_prog *p, const char *name, sc_graph g, sc_graph child); /* cuGraphAddChildGraphNode */
/* a conditional node of g (and the kernel node that sets its condition before it), whose body holds a
 * child graph node of body (cloned by the call); a second body, body2, for SWITCH and IF/ELSE, else SC_NO_BODY */
#define SC_NO_BODY (-1)
sc_op sc_node_cond(sc_prog *p, const char *name, sc_graph g, sc_graph body, sc_graph body2, enum sc_cond_how how);
/* a kernel node of g that launches graph child from the device in mode how (child: a nodes graph, instantiated
 * for device launch and uploaded by the call, so its nodes must be added before) */
sc_op sc_node_devlaunch(sc_prog *p, const char *name, sc_graph g, sc_graph child, enum sc_dl_mode how);
/* a memset node of g whose destination is buffer m, a stream-ordered allocation (alloc_async,
 * alloc_from) made before it; the op answers cuGraphAddMemsetNode's code. */
sc_op sc_node_memset_alloc(sc_prog *p, const char *name, sc_graph g, sc_buffer m);
/* cuMemcpyPeerAsync of buffer m (a stream-ordered allocation, on its alloc_async's device) into the
 * op's destination on s's device; its destination holds what m's last fill before it wrote. */
sc_op sc_memcpy_peer_from(sc_prog *p, const char *name, sc_buffer m, sc_stream s);
sc_op sc_edge(sc_prog *p, const char *name, sc_op from, sc_op to);       /* two nodes of one graph */
sc_op sc_instantiate(sc_prog *p, const char *name, sc_graph g);          /* cuGraphInstantiate      */
/* cuGraphInstantiateWithParams with CUDA_GRAPH_INSTANTIATE_FLAG_UPLOAD: uploaded into s, not run */
sc_op sc_instantiate_upload(sc_prog *p, const char *name, sc_graph g, sc_stream s);
sc_op sc_exec_update(sc_prog *p, const char *name, sc_graph g, sc_graph from); /* cuGraphExecUpdate */
sc_op sc_exec_destroy(sc_prog *p, const char *name, sc_graph g);         /* cuGraphExecDestroy      */
/* node of an instantiated graph disabled (enable 0) or enabled again (cuGraphNodeSetEnabled) */
sc_op sc_node_enable(sc_prog *p, const char *name, sc_op node, int enable);
/* node of an instantiated graph takes the parameters of node from, of its kind (cuGraphExec*NodeSetParams) */
sc_op sc_exec_set_params(sc_prog *p, const char *name, sc_op node, sc_op from);
/* a memory allocation node (cuGraphAddMemAllocNode) of 4 MiB that the graph never frees; the
 * runtime frees what a launch left allocated at the end of the case */
sc_op sc_node_alloc(sc_prog *p, const char *name, sc_graph g);
/* a memory free node (cuGraphAddMemFreeNode) in g of the allocation that node_alloc op alloc made: alloc of g,
 * the free node depends on it; of another graph, on nothing.  Its code is its answer */
sc_op sc_node_free(sc_prog *p, const char *name, sc_graph g, sc_op alloc);
/* cuGraphInstantiateWithParams (flags 0), whose result_out is its value (a getter) and whose
 * code is its answer (a refusal is not the case's failure) */
sc_op sc_instantiate_checked(sc_prog *p, const char *name, sc_graph g);
/* cuGraphInstantiateWithParams with CUDA_GRAPH_INSTANTIATE_FLAG_AUTO_FREE_ON_LAUNCH */
sc_op sc_instantiate_auto_free(sc_prog *p, const char *name, sc_graph g);

#endif
