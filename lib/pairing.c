/* placeholder until implemented */
extern int ggmlviz__placeholder_pairing;
